package dev.tandem.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The optional Slurm control plane ({@code slurm.enabled}), rendered with ci/slurm-values.yaml. */
class ChartSlurmTest {
  private static final Path VALUES = Chart.DIR.resolve("ci/slurm-values.yaml");

  private static <T extends HasMetadata> T named(
      List<HasMetadata> objects, Class<T> type, String name) {
    return Chart.ofType(objects, type).stream()
        .filter(o -> o.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name));
  }

  private static Container container(List<Container> cs, String name) {
    return cs.stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void offByDefault() {
    List<HasMetadata> objects = Chart.render(null, Map.of());
    assertTrue(Chart.ofType(objects, StatefulSet.class).isEmpty());
    assertTrue(Chart.ofType(objects, Job.class).isEmpty());
  }

  @Test
  void slurmctldKeepsItsStateOnAPersistentVolume() {
    List<HasMetadata> objects = Chart.render(VALUES, Map.of());
    StatefulSet ctld = named(objects, StatefulSet.class, "tandem-slurmctld");
    assertEquals("state", ctld.getSpec().getVolumeClaimTemplates().get(0).getMetadata().getName());
    Container c = container(ctld.getSpec().getTemplate().getSpec().getContainers(), "slurmctld");
    assertTrue(
        c.getVolumeMounts().stream()
            .anyMatch(
                m ->
                    m.getName().equals("state")
                        && m.getMountPath().equals("/var/spool/slurmctld")));
    String conf = named(objects, ConfigMap.class, "tandem-slurm-conf").getData().get("slurm.conf");
    assertTrue(conf.contains("StateSaveLocation=/var/spool/slurmctld\n"), conf);
    assertTrue(
        conf.contains(
            "SlurmctldHost=tandem-slurmctld-0(tandem-slurmctld-0.tandem-slurmctld.tandem.svc)"),
        conf);
    assertEquals("tandem-slurmctld", ctld.getSpec().getServiceName());
    assertEquals(
        "None", named(objects, Service.class, "tandem-slurmctld").getSpec().getClusterIP());
  }

  @Test
  void partitionsAndNodeSetsComeFromValues() {
    ConfigMap cm = named(Chart.render(VALUES, Map.of()), ConfigMap.class, "tandem-slurm-conf");
    String conf = cm.getData().get("slurm.conf");
    assertTrue(conf.contains("NodeSet=cpu Feature=cpu\n"), conf);
    assertTrue(
        conf.contains("PartitionName=cpu Nodes=cpu Default=YES MaxTime=INFINITE State=UP\n"), conf);
    assertTrue(conf.contains("NodeSet=gpu Feature=h100\n"), conf);
    assertTrue(conf.contains("PartitionName=gpu Nodes=gpu MaxTime=7-00:00:00 State=UP\n"), conf);
    assertTrue(conf.contains("ClusterName=lab\n") && conf.contains("MaxNodeCount=1024\n"), conf);
    assertTrue(
        conf.contains("Prolog=/etc/slurm/prolog.sh\n")
            && conf.contains("Epilog=/etc/slurm/epilog.sh\n"));
    assertTrue(conf.contains("AccountingStorageType=accounting_storage/slurmdbd\n"), conf);
    assertNotNull(cm.getData().get("prolog.sh"));
    assertNotNull(cm.getData().get("cgroup.conf"));
    assertNotNull(cm.getData().get("gres.conf"));
    assertTrue(cm.getData().get("authorized_keys").contains("admin@example"));
  }

  @Test
  void theWorkerUsesThisSlurmrestdWithJwt() {
    List<HasMetadata> objects = Chart.render(VALUES, Map.of());
    Deployment restd = named(objects, Deployment.class, "tandem-slurmrestd");
    Container c = container(restd.getSpec().getTemplate().getSpec().getContainers(), "slurmrestd");
    assertTrue(
        String.join(" ", c.getCommand()).contains("-a rest_auth/jwt"), c.getCommand().toString());
    Service svc = named(objects, Service.class, "tandem-slurmrestd");
    List<EnvVar> env = Chart.workerEnv(objects);
    assertEquals(
        "http://tandem-slurmrestd.tandem.svc:" + svc.getSpec().getPorts().get(0).getPort(),
        env.stream()
            .filter(e -> e.getName().equals("SLURM_REST_URL"))
            .findFirst()
            .orElseThrow()
            .getValue());
    assertTrue(env.stream().anyMatch(e -> e.getName().equals("SLURM_JWT_KEY_FILE")));
    assertTrue(
        Chart.worker(objects).getSpec().getTemplate().getSpec().getVolumes().stream()
            .anyMatch(
                v ->
                    v.getSecret() != null
                        && v.getSecret().getSecretName().equals("tandem-slurm-jwt")));
  }

  @Test
  void keysAreGeneratedInTheClusterOrTakenFromExistingSecrets(@TempDir Path tmp) {
    List<HasMetadata> objects = Chart.render(VALUES, Map.of());
    assertTrue(Chart.ofType(objects, Secret.class).isEmpty(), "no key in the rendered manifests");
    List<HasMetadata> hooks = Chart.renderHooks(tmp.resolve("a"), VALUES, Map.of());
    assertTrue(Chart.ofType(hooks, Secret.class).isEmpty(), "no key in the hooks either");
    Job job = named(hooks, Job.class, "tandem-slurm-keys");
    assertEquals(
        "pre-install,pre-upgrade", job.getMetadata().getAnnotations().get("test.tandem.dev/hook"));
    String script =
        String.join(
            "\n", job.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand());
    assertTrue(script.contains("key tandem-slurm-munge munge.key 1024"), script);
    assertTrue(script.contains("key tandem-slurm-jwt jwt_hs256.key 32"), script);
    assertTrue(script.contains("exists, kept"), "an existing key is never replaced: " + script);
    Role role = Chart.one(hooks, Role.class);
    assertEquals(List.of("get", "create"), role.getRules().get(0).getVerbs());
    assertEquals(List.of("secrets"), role.getRules().get(0).getResources());

    Map<String, String> given =
        Map.of("slurm.munge.existingSecret", "my-munge", "slurm.jwt.existingSecret", "my-jwt");
    assertTrue(
        Chart.renderHooks(tmp.resolve("b"), VALUES, given).stream()
            .noneMatch(o -> o.getMetadata().getName().equals("tandem-slurm-keys")),
        "nothing to generate");
    List<HasMetadata> withGiven = Chart.render(VALUES, given);
    StatefulSet ctld = named(withGiven, StatefulSet.class, "tandem-slurmctld");
    assertTrue(
        ctld.getSpec().getTemplate().getSpec().getVolumes().stream()
            .anyMatch(
                v -> v.getSecret() != null && v.getSecret().getSecretName().equals("my-munge")));
    assertTrue(
        Chart.worker(withGiven).getSpec().getTemplate().getSpec().getVolumes().stream()
            .anyMatch(
                v -> v.getSecret() != null && v.getSecret().getSecretName().equals("my-jwt")));
  }

  /**
   * With accounting, slurm.conf has the settings the local Slurm of CI runs, and a Job registers
   * the QOS, accounts and users of values after every install and upgrade with the same script
   * scripts/slurm-local.sh runs (files/slurm-accounting.sh).
   */
  @Test
  void accountingRegistersTheValuesQosAndAccountsWithTheScriptCiRuns(@TempDir Path tmp)
      throws Exception {
    String conf =
        named(Chart.render(VALUES, Map.of()), ConfigMap.class, "tandem-slurm-conf")
            .getData()
            .get("slurm.conf");
    for (String line :
        List.of(
            "AccountingStorageEnforce=associations,limits,qos",
            "AccountingStoreFlags=job_comment",
            "PriorityType=priority/multifactor",
            "PreemptType=preempt/qos",
            "PreemptMode=REQUEUE")) {
      assertTrue(conf.contains(line + "\n"), line + " in\n" + conf);
    }
    Job job = named(Chart.renderHooks(tmp, VALUES, Map.of()), Job.class, "tandem-slurm-accounting");
    assertEquals(
        "post-install,post-upgrade",
        job.getMetadata().getAnnotations().get("test.tandem.dev/hook"));
    var spec = job.getSpec().getTemplate().getSpec();
    assertEquals("munged", spec.getInitContainers().get(0).getName());
    assertEquals("Always", spec.getInitContainers().get(0).getRestartPolicy(), "a sidecar");
    Container register = container(spec.getContainers(), "register");
    String script = Files.readString(Chart.DIR.resolve("files/slurm-accounting.sh"));
    assertEquals(List.of("/bin/sh", "-c", script), register.getCommand());
    Map<String, String> env = new java.util.HashMap<>();
    register.getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
    assertEquals("lab", env.get("SLURM_CLUSTER"));
    assertEquals("low:0: normal:10:low high:100:normal,low", env.get("SLURM_QOS"));
    assertEquals("k8s:", env.get("SLURM_ACCOUNTS"));
    assertEquals("root:k8s:k8s", env.get("SLURM_USERS"));
    // CI's local Slurm registers its own QOS and accounts with this very file.
    assertTrue(
        Files.readString(Chart.ROOT.resolve("scripts/lib/slurm-local-accounting.sh"))
            .contains("/helm/tandem/files/slurm-accounting.sh\""));
  }

  @Test
  void slurmdbdTakesTheDatabasePasswordFromASecret() {
    List<HasMetadata> objects = Chart.render(VALUES, Map.of());
    Deployment dbd = named(objects, Deployment.class, "tandem-slurmdbd");
    EnvVar pw = dbd.getSpec().getTemplate().getSpec().getInitContainers().get(0).getEnv().get(0);
    assertEquals("slurm-db", pw.getValueFrom().getSecretKeyRef().getName());
    assertThrows(
        Exception.class,
        () -> Chart.template(VALUES, Map.of("slurm.accounting.passwordSecret", "")));
  }

  /** The slurm-conf volume of slurmctld: projected with tandem-topology when topology is on. */
  private static io.fabric8.kubernetes.api.model.Volume slurmConfVolume(List<HasMetadata> objects) {
    return named(objects, StatefulSet.class, "tandem-slurmctld")
        .getSpec()
        .getTemplate()
        .getSpec()
        .getVolumes()
        .stream()
        .filter(v -> v.getName().equals("slurm-conf"))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void topologyIsMountedIntoSlurmctldWhenConfigured() {
    List<HasMetadata> off = Chart.render(VALUES, Map.of());
    assertNotNull(slurmConfVolume(off).getConfigMap());
    String offConf = named(off, ConfigMap.class, "tandem-slurm-conf").getData().get("slurm.conf");
    assertTrue(!offConf.contains("TopologyPlugin"), offConf);

    String tree = "tree:topology.tandem.dev/spine,topology.tandem.dev/leaf";
    List<HasMetadata> yaml = Chart.render(VALUES, Map.of("config.TANDEM_TOPOLOGY", tree));
    var sources = slurmConfVolume(yaml).getProjected().getSources();
    assertEquals("tandem-slurm-conf", sources.get(0).getConfigMap().getName());
    assertEquals("tandem-topology", sources.get(1).getConfigMap().getName());
    assertEquals(true, sources.get(1).getConfigMap().getOptional());
    assertEquals("topology.yaml", sources.get(1).getConfigMap().getItems().get(0).getKey());
    // topology.yaml names its plugins itself; TopologyPlugin only goes with topology.conf.
    String yamlConf = named(yaml, ConfigMap.class, "tandem-slurm-conf").getData().get("slurm.conf");
    assertTrue(!yamlConf.contains("TopologyPlugin"), yamlConf);

    List<HasMetadata> conf =
        Chart.render(VALUES, Map.of("config.TANDEM_TOPOLOGY", tree, "slurm.topology.file", "conf"));
    assertEquals(
        "topology.conf",
        slurmConfVolume(conf)
            .getProjected()
            .getSources()
            .get(1)
            .getConfigMap()
            .getItems()
            .get(0)
            .getKey());
    assertTrue(
        named(conf, ConfigMap.class, "tandem-slurm-conf")
            .getData()
            .get("slurm.conf")
            .contains("TopologyPlugin=topology/tree\n"));
    List<HasMetadata> block =
        Chart.render(
            VALUES, Map.of("config.TANDEM_TOPOLOGY", "block:b", "slurm.topology.file", "conf"));
    assertTrue(
        named(block, ConfigMap.class, "tandem-slurm-conf")
            .getData()
            .get("slurm.conf")
            .contains("TopologyPlugin=topology/block\n"));
  }

  private static List<String> slurmctldContainers(List<HasMetadata> objects) {
    return named(objects, StatefulSet.class, "tandem-slurmctld")
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .stream()
        .map(c -> c.getName())
        .toList();
  }

  @Test
  void aSidecarReconfiguresSlurmctldWhenTheTopologyIsPublished() {
    String tree = "tree:topology.tandem.dev/spine,topology.tandem.dev/leaf";
    assertTrue(!slurmctldContainers(Chart.render(VALUES, Map.of())).contains("topology-reload"));
    List<HasMetadata> on =
        Chart.render(VALUES, Map.of("config.TANDEM_TOPOLOGY", tree, "slurm.topology.file", "conf"));
    assertTrue(
        slurmctldContainers(on).contains("topology-reload"), slurmctldContainers(on).toString());
    var sidecar =
        named(on, StatefulSet.class, "tandem-slurmctld")
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .stream()
            .filter(c -> c.getName().equals("topology-reload"))
            .findFirst()
            .orElseThrow();
    assertEquals(
        "/etc/slurm/topology.conf",
        sidecar.getEnv().stream()
            .filter(e -> e.getName().equals("TOPOLOGY_FILE"))
            .findFirst()
            .orElseThrow()
            .getValue());
    assertTrue(sidecar.getCommand().get(2).contains("scontrol reconfigure"));
    assertTrue(
        sidecar.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/run/munge")),
        "scontrol authenticates through munged's socket");
    assertTrue(
        !slurmctldContainers(
                Chart.render(
                    VALUES,
                    Map.of("config.TANDEM_TOPOLOGY", tree, "slurm.topology.reload", "false")))
            .contains("topology-reload"));
  }
}
