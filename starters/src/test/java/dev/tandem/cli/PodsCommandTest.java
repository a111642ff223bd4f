package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.devstack.faults.KubeApiProxy;
import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import dev.tandem.devstack.kube.TestNamespace;
import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.schedule.FakeScheduling;
import dev.tandem.workflows.schedule.GroupMember;
import dev.tandem.workflows.schedule.GroupPhase;
import dev.tandem.workflows.schedule.PodGroupInput;
import dev.tandem.workflows.schedule.PodGroupWorkflow;
import dev.tandem.workflows.schedule.PodGroupWorkflowImpl;
import dev.tandem.workflows.schedule.PodRequest;
import dev.tandem.workflows.schedule.PodScheduleInput;
import dev.tandem.workflows.schedule.PodScheduleWorkflow;
import dev.tandem.workflows.schedule.PodScheduleWorkflowImpl;
import dev.tandem.workflows.schedule.SchedulePhase;
import dev.tandem.workflows.schedule.SchedulingConfig;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tandem pods} (from visibility, without a kubeconfig) and {@code tandem history pod/...}
 * (against the local Kubernetes API) on a local Temporal, with the real {@link
 * PodScheduleWorkflowImpl} and {@link PodGroupWorkflowImpl} on a worker ({@link FakeScheduling}
 * behind their activities): a bound pod, a queued one, a running gang in another namespace; not
 * listed: an invalid pod (its workflow ended), a pod without a workflow, a pod of another
 * scheduler.
 */
class PodsCommandTest {
  private static final Duration LIMIT = Duration.ofSeconds(30);
  private static LocalTemporal temporal;
  private static KubernetesClient k8s;
  private static TestNamespace namespace;
  private static TestNamespace second;

  /** The namespace of the class's pods; {@link #team} holds its gang. */
  private static String ns;

  private static String team;
  private static WorkflowServiceStubs stubs;
  private static WorkerFactory worker;
  private static FakeScheduling world;
  private static Path kubeconfig;
  private static String webUid;

  @BeforeAll
  static void start() throws Exception {
    temporal = LocalTemporal.startTemporary();
    LocalKubernetes kube = SharedKubernetes.get();
    k8s = kube.adminClient();
    kubeconfig = kube.kubeconfig();
    namespace = TestNamespace.create(k8s, "pods-cli");
    ns = namespace.name();
    second = TestNamespace.create(k8s, "pods-cli-team");
    team = second.name();
    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
    WorkflowClient client = WorkflowClient.newInstance(stubs);
    world = new FakeScheduling();
    world.slurmToK8s.put("n1", "k1");
    world.slurmToK8s.put("n2", "k2");
    worker = WorkerFactory.newInstance(client);
    var w = VersionedWorker.newWorker(worker);
    w.registerWorkflowImplementationTypes(
        PodScheduleWorkflowImpl.class, PodGroupWorkflowImpl.class);
    w.registerActivitiesImplementations(world);
    worker.start();
    VersionedWorker.makeCurrent(stubs);

    webUid = pod(ns, "web", Names.SCHEDULER_NAME, Map.of()).getMetadata().getUid();
    String badUid =
        pod(ns, "bad", Names.SCHEDULER_NAME, Map.of("tandem.dev/exclusive", "all"))
            .getMetadata()
            .getUid();
    String queuedUid = pod(ns, "queued", Names.SCHEDULER_NAME, Map.of()).getMetadata().getUid();
    pod(ns, "fresh", Names.SCHEDULER_NAME, Map.of());
    pod(ns, "other", "default-scheduler", Map.of());
    pod(team, "g-0", Names.SCHEDULER_NAME, Map.of("tandem.dev/pod-group", "g"));

    PodScheduleWorkflow web = schedule(client, "web", webUid, Map.of());
    PodScheduleWorkflow bad =
        schedule(client, "bad", badUid, Map.of("tandem.dev/exclusive", "all"));
    Await.until("web pending", LIMIT, () -> web.status().phase(), p -> p == SchedulePhase.PENDING);
    long id = world.jobOf(webUid);
    web.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1")));
    Await.until("web running", LIMIT, () -> web.status().phase(), p -> p == SchedulePhase.RUNNING);
    Await.until("bad invalid", LIMIT, () -> bad.status().phase(), p -> p == SchedulePhase.INVALID);
    PodScheduleWorkflow queued = schedule(client, "queued", queuedUid, Map.of());
    Await.until(
        "queued pending", LIMIT, () -> queued.status().phase(), p -> p == SchedulePhase.PENDING);

    // A running gang of two in the second namespace, scheduled by its group's workflow.
    Map<String, String> gang = Map.of("tandem.dev/pod-group", "h", "tandem.dev/group-size", "2");
    WorkflowOptions groupOptions =
        WorkflowOptions.newBuilder()
            .setWorkflowId(Names.podGroupWorkflowId(team, "h"))
            .setTaskQueue(Names.TASK_QUEUE)
            .build();
    PodGroupInput groupInput =
        new PodGroupInput(
            team, "h", SchedulingConfig.defaults(), new Tuning(1, 10, 4000, 200, 120, false), null);
    for (String m : List.of("h-0", "h-1")) {
      String uid = pod(team, m, Names.SCHEDULER_NAME, gang).getMetadata().getUid();
      world.addPod(m, uid);
      PodRequest r =
          new PodRequest(
              team,
              m,
              uid,
              Map.of("cpu", "500m", "memory", "1Gi"),
              gang,
              Map.of(),
              null,
              20L,
              null);
      // As the watcher does: signal-with-start (a group with no member yet ends at once).
      client
          .newUntypedWorkflowStub("PodGroup", groupOptions)
          .signalWithStart(
              Names.SIGNAL_MEMBER_OBSERVED,
              new Object[] {new GroupMember(r, world.getPod(team, m))},
              new Object[] {groupInput});
    }
    PodGroupWorkflow group =
        client.newWorkflowStub(PodGroupWorkflow.class, Names.podGroupWorkflowId(team, "h"));
    Await.until("gang pending", LIMIT, () -> group.status().jobId(), j -> j != 0);
    long gid = group.status().jobId();
    group.jobObserved(world.setJob(gid, "RUNNING", "None", List.of("n1", "n2")));
    Await.until("gang running", LIMIT, () -> group.status().phase(), p -> p == GroupPhase.RUNNING);
    // Visibility is eventually consistent: wait until it lists what runs (web, queued, the gang)
    // and no longer the invalid pod's ended workflow.
    Await.until(
        "visibility lists the running workflows",
        LIMIT,
        () ->
            client
                .listExecutions(PodsCommand.query(null))
                .map(e -> e.getExecution().getWorkflowId())
                .sorted()
                .toList(),
        ids ->
            ids.equals(
                List.of(
                    Names.podGroupWorkflowId(team, "h"),
                    Names.scheduleWorkflowId(ns, "queued", queuedUid),
                    Names.scheduleWorkflowId(ns, "web", webUid))));
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.shutdownNow();
    }
    if (stubs != null) {
      stubs.shutdownNow();
    }
    if (k8s != null) {
      namespace.close();
      second.close();
      k8s.close();
    }
    if (temporal != null) {
      temporal.close();
    }
  }

  private static Pod pod(String namespace, String name, String scheduler, Map<String, String> ann) {
    return k8s.pods()
        .inNamespace(namespace)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(ann)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(scheduler)
                .addNewContainer()
                .withName("c")
                .withImage("busybox")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private static PodScheduleWorkflow schedule(
      WorkflowClient client, String name, String uid, Map<String, String> annotations) {
    PodRequest r =
        new PodRequest(
            ns,
            name,
            uid,
            Map.of("cpu", "500m", "memory", "1Gi"),
            annotations,
            Map.of(),
            null,
            20L,
            null);
    world.addPod(name, uid);
    PodScheduleWorkflow wf =
        client.newWorkflowStub(
            PodScheduleWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.scheduleWorkflowId(ns, name, uid))
                .setTaskQueue(Names.TASK_QUEUE)
                .build());
    WorkflowClient.start(
        wf::run,
        new PodScheduleInput(
            r, SchedulingConfig.defaults(), new Tuning(1, 10, 4000, 200, 120, false), null));
    return wf;
  }

  /**
   * {@code tandem args...}; {@code tandem pods} without a kubeconfig, history with one; in the
   * class's namespace unless the args name one.
   */
  private static CliRun tandem(String... args) {
    List<String> given = List.of(args);
    List<String> more = new ArrayList<>(List.of("--address", temporal.address()));
    if (args[0].equals("pods")) {
      if (!given.contains("-n") && !given.contains("-A")) {
        more.addAll(List.of("-n", ns));
      }
    } else {
      more.addAll(List.of("--kubeconfig", kubeconfig.toString()));
      if (!given.contains("-k")) {
        more.addAll(List.of("-k", ns));
      }
    }
    return CliRun.fast(CliRun.concat(args, more.toArray(String[]::new)));
  }

  /** The pods of a table, in its order. */
  private static List<String> pods(String out, int column) {
    return out.lines().skip(1).map(l -> l.split(" {3,}")[column]).toList();
  }

  /** The table row of {@code pod}, split on runs of spaces. */
  private static List<String> row(String out, String pod) {
    return out.lines()
        .map(l -> List.of(l.split(" {3,}")))
        .filter(cells -> cells.contains(pod))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row for " + pod + " in\n" + out));
  }

  /**
   * The namespace's running scheduling workflows, from visibility: not the invalid pod (its
   * workflow ended), not a pod without a workflow, not another scheduler's, not another namespace's
   * gang.
   */
  @Test
  void listsTheNamespacesRunningSchedulingWorkflowsWithTheirStatus() {
    CliRun r = tandem("pods");
    assertEquals(0, r.code(), r.toString());
    List<String> lines = r.out().lines().toList();
    assertEquals(
        List.of(
            "POD",
            "GROUP",
            "PHASE",
            "JOB",
            "SLURM",
            "QOS",
            "SLURM-NODE",
            "K8S-NODE",
            "AGE",
            "PROBLEM"),
        List.of(lines.get(0).split(" +")));
    // "was" is another test's pod, listed while its workflow runs.
    assertEquals(
        List.of("queued", "web"),
        pods(r.out(), 0).stream().filter(p -> !p.equals("was")).toList(),
        r.out());
    long id = world.jobOf(webUid);
    List<String> web = row(r.out(), "web");
    assertEquals(
        List.of("web", "-", "running", Long.toString(id), "RUNNING", "default", "n1", "k1"),
        web.subList(0, 8));
    assertTrue(web.get(8).matches("\\d+s"), web.toString());
    assertEquals("-", web.get(9));
    List<String> queued = row(r.out(), "queued");
    assertEquals(List.of("queued", "-", "pending"), queued.subList(0, 3), r.out());
  }

  @Test
  void allNamespacesAddsTheNamespaceAndShowsGangMembersFromTheirGroup() {
    CliRun r = tandem("pods", "-A");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().matches("(?s)NAMESPACE +POD +GROUP .*"), r.out());
    // A member of a running gang shows its group's phase and job, and its own nodes.
    List<String> h = row(r.out(), "h-0");
    assertEquals(List.of(team, "h-0", "h", "group running"), h.subList(0, 4), r.out());
    assertTrue(h.contains("RUNNING"), h.toString());
    assertTrue(h.contains("n1") && h.contains("k1"), h.toString());
    assertTrue(row(r.out(), "h-1").contains("k2"), r.out());
    assertEquals("default", h.get(6), h.toString());
    assertTrue(h.get(9).matches("\\d+s"), h.toString());
    assertEquals(
        List.of("h-0", "h-1", "queued", "web"),
        pods(r.out(), 1).stream().filter(p -> !p.equals("was")).sorted().toList(),
        r.out());
    assertEquals(List.of("h-0", "h-1"), pods(tandem("pods", "-n", team).out(), 0));
    CliRun none = tandem("pods", "-n", "team-z");
    assertEquals(
        "no pod is being scheduled through Slurm in namespace team-z (no running scheduling"
            + " workflow)\n",
        none.out());
  }

  @Test
  void jsonCarriesTheWholeStatus() throws Exception {
    CliRun r = tandem("pods", "-o", "json");
    assertEquals(0, r.code(), r.toString());
    JsonNode web = null;
    for (JsonNode p : Output.JSON.readTree(r.out())) {
      if (p.path("pod").asText().equals("web")) {
        web = p;
      }
    }
    assertTrue(web != null, r.out());
    assertEquals(webUid, web.path("uid").asText());
    assertEquals(Names.scheduleWorkflowId(ns, "web", webUid), web.path("workflowId").asText());
    assertEquals("RUNNING", web.path("schedule").path("phase").asText());
    assertEquals("k1", web.path("schedule").path("k8sNode").asText());
    assertTrue(web.path("schedule").path("timeline").size() > 0, r.out());
    assertEquals(
        web.path("schedule").path("timeline").get(0).path("at").asText(),
        web.path("started").asText());
  }

  /** A listing visibility refuses is a clear error that names the query. */
  @Test
  void aListingTheServerRefusesSaysWhy() {
    TemporalSession session =
        new TemporalSession(
            WorkflowClient.newInstance(stubs),
            temporal.address(),
            "default",
            Duration.ofSeconds(5));
    CliException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            CliException.class, () -> session.list("NoSuchAttribute = 'x'"));
    assertTrue(
        e.getMessage()
            .startsWith(
                "Temporal at " + temporal.address() + " cannot list workflows (INVALID_ARGUMENT: "),
        e.getMessage());
    assertTrue(e.getMessage().contains("; query: NoSuchAttribute = 'x')"), e.getMessage());
  }

  @Test
  void historyOfAPodByNameOrWorkflowId() {
    long id = world.jobOf(webUid);
    String header =
        "pod "
            + ns
            + "/web (uid "
            + webUid
            + "): running, job "
            + id
            + " RUNNING, Slurm node n1, bound to k1";
    for (String target :
        List.of("pod/web", "pod/" + ns + "/web", "schedule/" + ns + "/web/" + webUid)) {
      CliRun r = tandem("history", target);
      assertEquals(0, r.code(), target + ": " + r);
      List<String> lines = r.out().lines().toList();
      assertEquals(header, lines.get(0), target);
      assertTrue(lines.get(1).startsWith("TIME "), r.out());
      assertTrue(lines.stream().anyMatch(l -> l.contains(" bound ")), r.out());
    }
  }

  /**
   * A deleted pod is found by name through the events Tandem recorded on it: the newest of Tandem's
   * events names its uid; another component's event on a later pod of the same name, and Tandem's
   * older event on an earlier one, do not.
   */
  @Test
  void historyOfADeletedPodByNameTakesItsUidFromTandemsEvents() {
    String uid = pod(ns, "was", Names.SCHEDULER_NAME, Map.of()).getMetadata().getUid();
    PodScheduleWorkflow wf = schedule(WorkflowClient.newInstance(stubs), "was", uid, Map.of());
    Await.until("was pending", LIMIT, () -> wf.status().phase(), p -> p == SchedulePhase.PENDING);
    k8s.pods().inNamespace(ns).withName("was").delete();
    Await.until(
        "was deleted",
        LIMIT,
        () -> k8s.pods().inNamespace(ns).withName("was").get(),
        p -> p == null);
    event("was", "uid-before", Names.EVENT_COMPONENT, "2026-11-29T10:00:00Z");
    event("was", uid, Names.EVENT_COMPONENT, "2026-11-29T11:00:00Z");
    event("was", "uid-after", "kubelet", "2026-11-29T12:00:00Z");

    CliRun r = tandem("history", "pod/was");
    assertEquals(0, r.code(), r.toString());
    String first = r.out().lines().findFirst().orElse("");
    assertTrue(
        first.startsWith(
            "pod " + ns + "/was (uid " + uid + ", deleted: the uid of its last events): pending"),
        r.out());
  }

  /** Without permission to list events, a deleted pod is still "not found", saying why. */
  @Test
  void historyOfADeletedPodSaysWhenItsEventsCannotBeRead(@TempDir Path dir) throws Exception {
    try (KubeApiProxy proxy = KubeApiProxy.start(SharedKubernetes.get())) {
      proxy.faults().failMatching(ApiFaults.resource("events"), 403, Duration.ofMinutes(1));
      Path viaProxy = proxy.writeKubeconfig(dir.resolve("kubeconfig"));
      CliRun r =
          CliRun.fast(
              "history",
              "pod/long-gone",
              "--address",
              temporal.address(),
              "--kubeconfig",
              viaProxy.toString(),
              "-k",
              ns);
      assertEquals(1, r.code(), r.toString());
      assertTrue(
          r.err()
              .startsWith(
                  "tandem: no pod "
                      + ns
                      + "/long-gone in Kubernetes, and no event of Tandem's names it (its events"
                      + " could not be read: "),
          r.err());
      assertTrue(r.err().contains("schedule/" + ns + "/long-gone/<uid>"), r.err());
      assertTrue(proxy.faults().injected() > 0, "the events listing was refused");
    }
  }

  /**
   * A gang member deleted: the newest of Tandem's events on it names its group (annotation {@code
   * tandem.dev/pod-group}), and its history is the group's.
   */
  @Test
  void historyOfADeletedGangMemberByNameIsItsGroups() {
    event(team, "h-9", "uid-h-9", Names.EVENT_COMPONENT, "2026-11-29T11:00:00Z", "h");
    CliRun r = tandem("history", "pod/" + team + "/h-9");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().startsWith("group " + team + "/h: "), r.out());
  }

  private static void event(String pod, String uid, String component, String at) {
    event(ns, pod, uid, component, at, null);
  }

  private static void event(
      String namespace, String pod, String uid, String component, String at, String group) {
    k8s.v1()
        .events()
        .inNamespace(namespace)
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName(pod + "." + uid)
                .withAnnotations(group == null ? null : Map.of("tandem.dev/pod-group", group))
                .endMetadata()
                .withNewInvolvedObject()
                .withKind("Pod")
                .withApiVersion("v1")
                .withNamespace(namespace)
                .withName(pod)
                .withUid(uid)
                .endInvolvedObject()
                .withType("Normal")
                .withReason("Test")
                .withMessage("from " + component)
                .withNewSource()
                .withComponent(component)
                .endSource()
                .withReportingComponent(component)
                .withFirstTimestamp(at)
                .withLastTimestamp(at)
                .build())
        .create();
  }

  /** A gang's timeline: by group name, by its workflow id, or by a live member's name. */
  @Test
  void historyOfAGangByGroupWorkflowIdOrMember() {
    long gid =
        WorkflowClient.newInstance(stubs)
            .newWorkflowStub(PodGroupWorkflow.class, Names.podGroupWorkflowId(team, "h"))
            .status()
            .jobId();
    for (String target :
        List.of("group/" + team + "/h", "schedule-group/" + team + "/h", "pod/" + team + "/h-0")) {
      CliRun r = tandem("history", target);
      assertEquals(0, r.code(), target + ": " + r);
      List<String> lines = r.out().lines().toList();
      assertTrue(
          lines
              .get(0)
              .startsWith("group " + team + "/h: running, job " + gid + " RUNNING, 2 member(s)"),
          target + ": " + lines.get(0));
      assertTrue(lines.get(0).contains("h-0 on k") && lines.get(0).contains("h-1 on k"), target);
      assertTrue(lines.get(1).startsWith("TIME "), r.out());
      assertTrue(lines.stream().anyMatch(l -> l.contains(" bound ")), r.out());
    }
    CliRun k = tandem("history", "group/h", "-k", team);
    assertEquals(0, k.code(), k.toString());
    CliRun none = tandem("history", "group/" + team + "/nope");
    assertEquals(1, none.code(), none.toString());
    assertTrue(
        none.err().startsWith("tandem: no scheduling workflow schedule-group/" + team + "/nope"),
        none.err());
    CliRun bad = tandem("history", "group/Not_A_Group");
    assertEquals(2, bad.code(), bad.toString());
    assertTrue(bad.firstErrorLine().contains("is not a group name"), bad.toString());
  }

  @Test
  void historyOfAPodSaysWhatIsWrong() {
    CliRun gone = tandem("history", "pod/gone");
    assertEquals(1, gone.code(), gone.toString());
    assertEquals(
        "tandem: no pod "
            + ns
            + "/gone in Kubernetes, and no event of Tandem's names it: for a"
            + " deleted pod give its workflow id, schedule/"
            + ns
            + "/gone/<uid>\n",
        gone.err());
    CliRun other = tandem("history", "pod/other");
    assertEquals(
        "tandem: pod "
            + ns
            + "/other is not scheduled through Slurm (schedulerName"
            + " default-scheduler, not tandem-slurm)\n",
        other.err());
    CliRun fresh = tandem("history", "pod/fresh");
    assertEquals(1, fresh.code(), fresh.toString());
    assertTrue(fresh.err().startsWith("tandem: no scheduling workflow schedule/" + ns + "/fresh/"));
    CliRun wrong = tandem("history", "pod/a/b/c");
    assertEquals(2, wrong.code(), wrong.toString());
    assertEquals(
        "'pod/a/b/c' is not a pod: use pod/NAME, pod/NAMESPACE/NAME or the workflow id"
            + " schedule/NAMESPACE/NAME/UID; for a gang group/NAME, group/NAMESPACE/NAME or"
            + " schedule-group/NAMESPACE/NAME",
        wrong.firstErrorLine());
  }

  @Test
  void unreachableTemporalIsACliError() {
    CliRun r = CliRun.fast("pods", "--address", "127.0.0.1:1", "--query-timeout", "2s");
    assertEquals(1, r.code(), r.toString());
    assertTrue(r.err().startsWith("tandem: cannot reach Temporal at 127.0.0.1:1"), r.err());
  }

  @Test
  void withoutAKubeconfigTheDevStacksIsUsedOnlyWhenNothingElseNamesACluster(@TempDir Path dir)
      throws Exception {
    Path home = dir.resolve("home-config");
    Path dev = dir.resolve("dev-kubeconfig");
    assertEquals(null, PodLookup.devKubeconfig(null, home, dev), "no dev stack");
    Files.writeString(dev, "x");
    assertEquals(dev.toString(), PodLookup.devKubeconfig(null, home, dev));
    assertEquals(null, PodLookup.devKubeconfig("/etc/k.conf", home, dev), "KUBECONFIG wins");
    Files.writeString(home, "x");
    assertEquals(null, PodLookup.devKubeconfig(null, home, dev), "~/.kube/config wins");
  }
}
