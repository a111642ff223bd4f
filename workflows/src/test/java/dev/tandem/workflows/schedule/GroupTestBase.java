package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.Tuning;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Gang helpers over {@link ScheduleTestBase}: members join by signal-with-start, as the watcher.
 */
public abstract class GroupTestBase extends ScheduleTestBase {
  protected static final String GROUP = "g";

  /** A member of group g with {@code size}, 500m/1Gi like {@link #request}. */
  protected static PodRequest member(String name, int size) {
    return member(name, size, Map.of());
  }

  protected static PodRequest member(String name, int size, Map<String, String> requests) {
    PodRequest r =
        request(
            name,
            Map.of(ScheduleAnnotations.POD_GROUP, GROUP, ScheduleAnnotations.GROUP_SIZE, "" + size),
            30);
    if (requests.isEmpty()) {
      return r;
    }
    Map<String, String> req = new HashMap<>(r.requests());
    req.putAll(requests);
    return new PodRequest(
        r.namespace(),
        r.name(),
        r.uid(),
        req,
        r.annotations(),
        r.nodeSelector(),
        r.priorityClassName(),
        r.terminationGracePeriodSeconds(),
        r.nodeName());
  }

  protected static String groupId() {
    return PodGroupWorkflowImpl.workflowId("default", GROUP);
  }

  /** The pod appears; the watcher signal-with-starts the group's workflow with it. */
  protected PodGroupWorkflow join(PodRequest r, Tuning tuning) {
    return join(r, tuning, Names.TASK_QUEUE);
  }

  /** As {@link #join(PodRequest, Tuning)}, the group's workflow on {@code queue}. */
  protected PodGroupWorkflow join(PodRequest r, Tuning tuning, String queue) {
    world.addPod(r.name(), r.uid());
    PodGroupWorkflow wf = stub(queue);
    BatchRequest b = client.newSignalWithStartRequest();
    b.add(wf::run, new PodGroupInput("default", GROUP, CONFIG, tuning, null));
    b.add(wf::memberObserved, new GroupMember(r, world.getPod("default", r.name())));
    client.signalWithStart(b);
    return wf;
  }

  protected PodGroupWorkflow join(PodRequest r) {
    return join(r, TUNING);
  }

  protected PodGroupWorkflow stub() {
    return stub(Names.TASK_QUEUE);
  }

  private PodGroupWorkflow stub(String queue) {
    return client.newWorkflowStub(
        PodGroupWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(groupId()).setTaskQueue(queue).build());
  }

  /** The pod is deleted and the watcher says so. */
  protected void delete(PodGroupWorkflow wf, PodRequest r) {
    world.pods.remove(r.name());
    wf.memberObserved(new GroupMember(r, PodView.absent(r.name())));
  }

  protected static boolean in(PodGroupWorkflow wf, GroupPhase p) {
    return wf.status().phase() == p;
  }

  protected static GroupPhase result(PodGroupWorkflow wf) {
    return WorkflowStub.fromTyped(wf).getResult(GroupPhase.class);
  }

  protected Condition last(String pod, String type) {
    return world.lastCondition(pod, type);
  }

  /** While the next eviction answers, {@code members} are gone and the watcher says so. */
  protected void goneDuringTheNextEviction(String... members) {
    world.duringEvict =
        () -> {
          for (String n : members) {
            world.pods.remove(n);
            client
                .newUntypedWorkflowStub(groupId())
                .signal("memberObserved", new GroupMember(member(n, 3), PodView.absent(n)));
          }
        };
  }

  /**
   * A gang running, its job preempted, member a gone while its eviction answers (the group still
   * ends as preempted). Returns the workflow; the caller awaits its end.
   */
  protected PodGroupWorkflow preemptedWhileAMemberGoes() {
    PodGroupWorkflow wf = runningGroup(TUNING);
    goneDuringTheNextEviction("a");
    wf.jobObserved(world.setJob(world.onlyJobId(), "PREEMPTED", "None", List.of("n1", "n2", "n3")));
    return wf;
  }

  /**
   * Member b deleted, a and c (evicted for it) gone before that task completes (the ending names b,
   * the one that went first). Returns the workflow; the caller awaits its end.
   */
  protected PodGroupWorkflow bDeletedAndTheOthersGoneAtOnce() {
    PodGroupWorkflow wf = runningGroup(TUNING);
    goneDuringTheNextEviction("a", "c");
    delete(wf, member("b", 3));
    return wf;
  }

  /** Members a, b, c of size 3 joined, job running on n1..n3 (mapped to k1..k3), all bound. */
  protected PodGroupWorkflow runningGroup(Tuning tuning) {
    for (int i = 1; i <= 3; i++) {
      world.slurmToK8s.put("n" + i, "k" + i);
    }
    PodGroupWorkflow wf = null;
    for (String n : List.of("a", "b", "c")) {
      wf = join(member(n, 3), tuning);
    }
    PodGroupWorkflow g = wf;
    await("pending", 10, () -> in(g, GroupPhase.PENDING));
    long id = world.onlyJobId();
    g.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1", "n2", "n3")));
    await("running", 5, () -> in(g, GroupPhase.RUNNING));
    return g;
  }
}
