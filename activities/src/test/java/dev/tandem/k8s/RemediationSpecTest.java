package dev.tandem.k8s;

import static dev.tandem.k8s.Fixtures.json;
import static dev.tandem.k8s.Fixtures.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.TimeoutAction;
import dev.tandem.workflows.remediation.HealthCheck;
import dev.tandem.workflows.remediation.LadderStep;
import dev.tandem.workflows.remediation.RemediationAction;
import dev.tandem.workflows.remediation.RemediationBudget;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.ReplaceMode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code spec.remediation} to {@link RemediationPolicy}, and every problem it can have. */
class RemediationSpecTest {

  private static NodeSetSpecView view(String remediationJson) {
    ObjectNode n = Fixtures.example();
    with(n, "spec.remediation", remediationJson == null ? null : json(remediationJson));
    return NodeSetSpecs.toView(n);
  }

  @Test
  void absentMeansDisabledAndLeavesThePayloadAsBefore() {
    NodeSetSpecView v = view(null);
    assertEquals(List.of(), v.problems());
    assertNull(v.remediation(), "no field in the specChanged payload");
    assertEquals(RemediationPolicy.disabled(), v.remediationPolicy());
    assertFalse(v.remediationPolicy().enabled());
  }

  @Test
  void emptyObjectMeansEveryDefault() {
    NodeSetSpecView v = view("{}");
    assertEquals(List.of(), v.problems());
    assertEquals(RemediationPolicy.defaults(), v.remediationPolicy());
    assertTrue(v.remediationPolicy().enabled());
  }

  @Test
  void readsEveryField() {
    NodeSetSpecView v =
        view(
            "{\"enabled\":false,\"notReadyFor\":\"2m\",\"conditions\":[\"GpuUnhealthy\","
                + "\"example.com/NicDown\"],\"slurmReasons\":[\"xid\",\"^ecc\"],"
                + "\"steps\":[{\"action\":\"Reboot\",\"timeout\":\"20m\"},{\"action\":\"Replace\"}],"
                + "\"jobs\":{\"timeout\":\"1h\",\"onTimeout\":\"Wait\"},\"recheckEvery\":\"15s\","
                + "\"replace\":{\"mode\":\"Delete\"},\"budget\":{\"maxPerNodeSet\":2,"
                + "\"domainLabel\":\"topology.example.com/rack\",\"maxPerDomain\":1}}");
    assertEquals(List.of(), v.problems());
    assertEquals(
        new RemediationPolicy(
            false,
            120,
            List.of("GpuUnhealthy", "example.com/NicDown"),
            List.of("xid", "^ecc"),
            List.of(
                new LadderStep(RemediationAction.REBOOT, 1200),
                new LadderStep(RemediationAction.REPLACE, 7200)),
            new DrainPolicy(3600, TimeoutAction.WAIT),
            15,
            ReplaceMode.DELETE,
            new RemediationBudget(2, "topology.example.com/rack", 1)),
        v.remediationPolicy());
  }

  @Test
  void readsTheHealthCheckWithItsDefaultTimeout() {
    assertEquals(
        new HealthCheck("#!/bin/sh\nnvidia-smi -q\n", 300),
        view("{\"healthCheck\":{\"script\":\"#!/bin/sh\\nnvidia-smi -q\\n\",\"timeout\":\"5m\"}}")
            .remediationPolicy()
            .healthCheck());
    assertEquals(
        new HealthCheck("exit 0", 600),
        view("{\"healthCheck\":{\"script\":\"exit 0\"}}").remediationPolicy().healthCheck());
    assertNull(view("{}").remediationPolicy().healthCheck(), "absent: no health check");
  }

  @Test
  void partialJobsKeepTheRemediationDefaults() {
    assertEquals(
        new DrainPolicy(600, TimeoutAction.FORCE),
        view("{\"jobs\":{\"timeout\":\"10m\"}}").remediationPolicy().jobs());
    assertEquals(
        new DrainPolicy(7200, TimeoutAction.WAIT),
        view("{\"jobs\":{\"onTimeout\":\"Wait\"}}").remediationPolicy().jobs());
  }

  @Test
  void emptyListsAreKeptNotDefaulted() {
    RemediationPolicy p = view("{\"conditions\":[],\"slurmReasons\":[]}").remediationPolicy();
    assertEquals(List.of(), p.conditions(), "no condition triggers");
    assertEquals(List.of(), p.slurmReasons(), "no reason triggers");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "[]|spec.remediation: [] is not an object",
        "{\"enable\":true}|spec.remediation.enable: unknown field",
        "{\"enabled\":\"yes\"}|spec.remediation.enabled: \"yes\" must be true or false",
        "{\"notReadyFor\":\"5 minutes\"}|spec.remediation.notReadyFor: \"5 minutes\" is not a"
            + " duration",
        "{\"notReadyFor\":\"0s\"}|spec.remediation.notReadyFor: \"0s\" is zero",
        "{\"conditions\":[\"Ready\"]}|spec.remediation.conditions[0]: Ready is True on a healthy",
        "{\"conditions\":[\"Gpu Unhealthy\"]}|spec.remediation.conditions[0]: \"Gpu Unhealthy\""
            + " is not a node condition type",
        "{\"conditions\":[\"A\",\"A\"]}|spec.remediation.conditions[1]: A is listed twice",
        "{\"conditions\":\"GpuUnhealthy\"}|spec.remediation.conditions: \"GpuUnhealthy\" must be"
            + " a list",
        "{\"slurmReasons\":[\"xid(\"]}|spec.remediation.slurmReasons[0]: \"xid(\" is not a"
            + " regular expression",
        "{\"slurmReasons\":[\"\"]}|spec.remediation.slurmReasons[0]: an empty pattern",
        "{\"slurmReasons\":[7]}|spec.remediation.slurmReasons[0]: 7 is not a string",
        "{\"steps\":[]}|spec.remediation.steps: empty",
        "{\"steps\":[{\"action\":\"Reimage\"}]}|spec.remediation.steps[0].action: \"Reimage\" is"
            + " not an action; one of RestartSlurmd, Reboot, Replace",
        "{\"steps\":[{\"timeout\":\"5m\"}]}|spec.remediation.steps[0].action: missing",
        "{\"steps\":[{\"action\":\"Reboot\"},{\"action\":\"Reboot\"}]}|spec.remediation.steps[1]"
            + ".action: Reboot is listed twice",
        "{\"steps\":[{\"action\":\"Reboot\",\"timeout\":\"0m\"}]}|spec.remediation.steps[0]"
            + ".timeout: \"0m\" is zero",
        "{\"steps\":[{\"action\":\"Reboot\",\"wait\":\"5m\"}]}|spec.remediation.steps[0].wait:"
            + " unknown field",
        "{\"jobs\":{\"onTimeout\":\"Kill\"}}|spec.remediation.jobs.onTimeout: \"Kill\" must be"
            + " Wait or Force",
        "{\"jobs\":{\"timeout\":\"0h\"}}|spec.remediation.jobs.timeout: \"0h\" is zero",
        "{\"recheckEvery\":\"0s\"}|spec.remediation.recheckEvery: \"0s\" is zero",
        "{\"replace\":{\"mode\":\"Terminate\"}}|spec.remediation.replace.mode: \"Terminate\" must"
            + " be Mark or Delete",
        "{\"budget\":{\"maxPerNodeSet\":0}}|spec.remediation.budget.maxPerNodeSet: 0 must be a"
            + " whole number from 1",
        "{\"budget\":{\"maxPerNodeSet\":1.5}}|spec.remediation.budget.maxPerNodeSet: 1.5 must be",
        "{\"budget\":{\"maxPerDomain\":2}}|spec.remediation.budget.maxPerDomain: needs domainLabel",
        "{\"budget\":{\"domainLabel\":\"a b\"}}|spec.remediation.budget.domainLabel: \"a b\" is"
            + " not a label key",
        "{\"budget\":{\"max\":2}}|spec.remediation.budget.max: unknown field",
        "{\"healthCheck\":{\"script\":\"\"}}|spec.remediation.healthCheck.script: \"\" is empty",
        "{\"healthCheck\":{\"script\":\"  \"}}|spec.remediation.healthCheck.script: \"  \" is"
            + " empty",
        "{\"healthCheck\":{\"timeout\":\"5m\"}}|spec.remediation.healthCheck.script: missing",
        "{\"healthCheck\":{\"script\":\"exit 0\",\"timeout\":\"0m\"}}|spec.remediation"
            + ".healthCheck.timeout: \"0m\" is zero",
        "{\"healthCheck\":\"exit 0\"}|spec.remediation.healthCheck: \"exit 0\" is not an object",
        "{\"healthCheck\":{\"script\":\"exit 0\",\"user\":\"x\"}}|spec.remediation.healthCheck"
            + ".user: unknown field",
      })
  void anInvalidPolicyIsAProblemNamingTheFieldAndDisablesRemediation(
      String remediation, String expected) {
    NodeSetSpecView v = view(remediation);
    assertTrue(
        v.problems().stream().anyMatch(p -> p.startsWith(expected)),
        () -> "expected a problem starting with <" + expected + ">, got " + v.problems());
    assertEquals(
        RemediationPolicy.disabled(),
        v.remediationPolicy(),
        "fail closed: no automatic remediation on a policy its author did not mean");
  }

  @Test
  void theTypedModelCarriesTheBlock() {
    ObjectNode n = Fixtures.example();
    with(
        n,
        "spec.remediation",
        json(
            "{\"steps\":[{\"action\":\"RestartSlurmd\",\"timeout\":\"5m\"}],"
                + "\"replace\":{\"mode\":\"Mark\"},\"budget\":{\"maxPerNodeSet\":3},"
                + "\"healthCheck\":{\"script\":\"exit 0\",\"timeout\":\"2m\"}}"));
    NodeSet typed = Json.MAPPER.convertValue(n, NodeSet.class);
    assertEquals(NodeSetSpecs.toView(n), NodeSetSpecs.toView(typed));
    assertEquals(
        List.of(new LadderStep(RemediationAction.RESTART_SLURMD, 300)),
        NodeSetSpecs.toView(typed).remediationPolicy().steps());
    assertEquals(
        new HealthCheck("exit 0", 120),
        NodeSetSpecs.toView(typed).remediationPolicy().healthCheck());
  }
}
