package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.common.VersioningBehavior;
import io.temporal.workflow.WorkflowMethod;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Worker Versioning's settings and Tandem's versioning behaviours (docs/upgrading.md, "Worker
 * Versioning"): the table there is this test's {@link #EXPECTED}.
 */
class WorkerVersioningConfigTest {
  static final Map<String, VersioningBehavior> EXPECTED =
      Map.of(
          "PodSchedule", VersioningBehavior.PINNED,
          "PodGroup", VersioningBehavior.PINNED,
          "Remediation", VersioningBehavior.PINNED,
          "NodeLifecycle", VersioningBehavior.AUTO_UPGRADE,
          "NodeSet", VersioningBehavior.AUTO_UPGRADE,
          "RemediationBudget", VersioningBehavior.AUTO_UPGRADE);

  @Test
  void everyWorkflowTypeDeclaresTheBehaviourOfTheReleasePolicy() {
    Map<String, VersioningBehavior> declared = new TreeMap<>();
    for (Class<?> impl : TandemWorker.WORKFLOW_TYPES) {
      for (Method m : impl.getMethods()) {
        WorkflowVersioningBehavior b = m.getAnnotation(WorkflowVersioningBehavior.class);
        if (b != null) {
          declared.put(workflowType(impl, m), b.value());
        }
      }
    }
    assertEquals(new TreeMap<>(EXPECTED), declared);
  }

  /** The name of the {@code @WorkflowMethod} the annotated method implements. */
  private static String workflowType(Class<?> impl, Method m) {
    for (Class<?> i : impl.getInterfaces()) {
      for (Class<?> j : allInterfaces(i)) {
        try {
          WorkflowMethod wm =
              j.getMethod(m.getName(), m.getParameterTypes()).getAnnotation(WorkflowMethod.class);
          if (wm != null) {
            return wm.name();
          }
        } catch (NoSuchMethodException e) {
          // not this one
        }
      }
    }
    throw new AssertionError(impl + "." + m.getName() + " implements no workflow method");
  }

  private static Iterable<Class<?>> allInterfaces(Class<?> i) {
    java.util.List<Class<?>> all = new java.util.ArrayList<>(java.util.List.of(i));
    Arrays.stream(i.getInterfaces()).forEach(j -> allInterfaces(j).forEach(all::add));
    return all;
  }

  @Test
  void onByDefaultWithDeploymentTandemAndABuildIdOfVersionAndWorkflowCode() {
    TandemConfig.Versioning v = TandemConfig.versioning(new Env(Map.of()));
    assertTrue(v.setCurrent());
    assertEquals("tandem", v.deploymentName());
    assertTrue(v.buildId().matches("^(\\d+\\.\\d+\\.\\d+\\S*|dev)-[0-9a-f]{12}$"), v.buildId());
    assertEquals(v.buildId(), TandemConfig.versioning(new Env(Map.of())).buildId(), "stable");
    var o = TandemWorker.workerOptions(TandemConfig.from(new Env(Map.of())).worker(), v);
    assertTrue(o.getDeploymentOptions().isUsingVersioning());
    assertEquals("tandem", o.getDeploymentOptions().getVersion().getDeploymentName());
    assertEquals(v.buildId(), o.getDeploymentOptions().getVersion().getBuildId());
  }

  @Test
  void settable() {
    TandemConfig.Versioning v =
        TandemConfig.versioning(
            new Env(
                Map.of(
                    "TANDEM_DEPLOYMENT_NAME", "tandem-gpu",
                    "TANDEM_BUILD_ID", "0.2.0+abc",
                    "TANDEM_SET_CURRENT_VERSION", "false")));
    assertEquals("tandem-gpu", v.deploymentName());
    assertEquals("0.2.0+abc", v.buildId());
    assertFalse(v.setCurrent());
  }

  @Test
  void refusesNamesTemporalWouldSplitOrRefuse() {
    assertThrows(
        ConfigException.class,
        () -> TandemConfig.versioning(new Env(Map.of("TANDEM_DEPLOYMENT_NAME", "tan.dem"))));
    assertThrows(
        ConfigException.class,
        () -> TandemConfig.versioning(new Env(Map.of("TANDEM_BUILD_ID", "__unversioned__"))));
    assertThrows(
        ConfigException.class,
        () -> TandemConfig.versioning(new Env(Map.of("TANDEM_BUILD_ID", "a b"))));
  }
}
