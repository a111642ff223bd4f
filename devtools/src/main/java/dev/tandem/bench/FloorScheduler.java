package dev.tandem.bench;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The floor of {@code tandem bench scheduling}: a scheduler that makes the calls every pod through
 * Slurm needs, in the order they are needed, and nothing else, so that what it reaches against the
 * raw jobs on the same machine bounds what any implementation with a workflow per pod can reach
 * there (docs/benchmarks.md, {@code tandem bench scheduling}). Its pods ask for scheduler {@link
 * #SCHEDULER}, so Tandem leaves them alone.
 *
 * <ol>
 *   <li>One informer on the run's pods hands each new pod to a pool of {@link #CALLERS} threads
 *       (never blocking the informer): signal-with-start of its {@link FloorWorkflow} ({@code
 *       seen}), then one job of the pod's size submitted straight to slurmrestd (a raw-like name,
 *       no placeholder tag).
 *   <li>One incremental job listing every {@link #POLL} (as often as Tandem's watcher lists jobs
 *       while a pod waits) finds the jobs that started. For each: signal {@code running}, POST the
 *       pod's Binding (uid precondition, job id and Slurm node annotations) to the Kubernetes node
 *       of the slurmd pod named after the job's Slurm node, and set {@code SlurmScheduled=True}
 *       with one strategic merge patch of the pod's status.
 *   <li>The pod's deletion (the bench deletes each pod once it is bound): signal {@code ended} (the
 *       workflow completes) and cancel the job.
 * </ol>
 *
 * <p>Left out of Tandem's path, so this costs less than any real implementation: validating the
 * pod, the {@code Scheduled} event, activities and their history markers, the release's signal and
 * read-back, looking jobs up by tag after a crash, retries, search attributes, metrics.
 */
final class FloorScheduler implements AutoCloseable {
  static final String SCHEDULER = "tandem-bench-floor";
  static final String TASK_QUEUE = "tandem-bench-floor";

  /**
   * Threads making the calls: twice as many as Tandem's watchers send signals from (16), four times
   * the bench's creating threads, so that the floor's own queue is not what a pod waits for.
   */
  static final int CALLERS = 32;

  /**
   * How often jobs are listed: Tandem's default while a pod waits ({@code
   * TANDEM_SLURM_PENDING_POLL}), so the floor's listings cost what Tandem's do.
   */
  static final Duration POLL = Duration.ofMillis(250);

  private record Seen(String uid, String workflowId) {}

  private final KubernetesClient k8s;
  private final SlurmClient slurm;
  private final WorkflowClient temporal;
  private final String namespace;
  private final String partition;
  private final String jobPrefix;
  private final Map<String, String> k8sNodeOfSlurmNode = new ConcurrentHashMap<>();
  private final Map<String, Seen> pods = new ConcurrentHashMap<>();
  private final Map<String, Long> jobs = new ConcurrentHashMap<>();
  private final Map<String, Boolean> started = new ConcurrentHashMap<>();
  private final AtomicInteger failures = new AtomicInteger();
  private final List<Double> listingsMs = Collections.synchronizedList(new ArrayList<>());
  private final Queue<String> firstFailures = new ConcurrentLinkedQueue<>();
  private final ExecutorService calls = Executors.newFixedThreadPool(CALLERS);
  private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();
  private final WorkerFactory workers;
  private final SharedIndexInformer<Pod> informer;
  private volatile Instant since;

  FloorScheduler(
      KubernetesClient k8s,
      SlurmClient slurm,
      WorkflowClient temporal,
      String namespace,
      String runId,
      String partition) {
    this.k8s = k8s;
    this.slurm = slurm;
    this.temporal = temporal;
    this.namespace = namespace;
    this.partition = partition;
    this.jobPrefix = "tandem-bench-floor-" + runId + "-";
    mapSlurmNodes();
    workers = WorkerFactory.newInstance(temporal);
    // The bench's JVM is starved on the saturated cores: a workflow thread can wait over the SDK's
    // 1 s deadlock detection for a CPU, which is no deadlock.
    workers
        .newWorker(
            TASK_QUEUE,
            WorkerOptions.newBuilder().setDefaultDeadlockDetectionTimeout(30_000).build())
        .registerWorkflowImplementationTypes(FloorWorkflowImpl.class);
    workers.start();
    informer =
        k8s.pods()
            .inNamespace(namespace)
            .withLabel(BenchPods.LABEL, runId)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod p) {
                    if (p.getSpec().getNodeName() == null
                        && p.getMetadata().getDeletionTimestamp() == null) {
                      calls.execute(() -> seen(p));
                    }
                  }

                  @Override
                  public void onUpdate(Pod before, Pod after) {}

                  @Override
                  public void onDelete(Pod p, boolean unknownFinalState) {
                    calls.execute(() -> ended(p.getMetadata().getName()));
                  }
                },
                0);
    poller.scheduleWithFixedDelay(this::poll, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Slurm node → Kubernetes node, from the slurmd pods (each is named after its Slurm node). */
  private void mapSlurmNodes() {
    for (Pod p : k8s.pods().inNamespace(namespace).list().getItems()) {
      if (p.getSpec() != null && p.getSpec().getNodeName() != null) {
        k8sNodeOfSlurmNode.put(p.getMetadata().getName(), p.getSpec().getNodeName());
      }
    }
  }

  private void seen(Pod p) {
    String name = p.getMetadata().getName();
    String uid = p.getMetadata().getUid();
    String id = "bench-floor/" + namespace + "/" + name + "/" + uid;
    try {
      temporal
          .newUntypedWorkflowStub(
              "FloorWorkflow",
              WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(TASK_QUEUE).build())
          .signalWithStart("observe", new Object[] {FloorWorkflow.SEEN}, new Object[0]);
      pods.put(name, new Seen(uid, id));
      long job = slurm.submit(RawSlurmRun.job(jobPrefix + name, "floor", partition));
      jobs.put(name, job);
    } catch (RuntimeException e) {
      fail("seen " + name, e);
    }
  }

  private void poll() {
    try {
      long asked = System.nanoTime();
      SlurmClient.Listing<SlurmJob> l = slurm.listJobs(since);
      listingsMs.add((System.nanoTime() - asked) / 1e6);
      since = l.updateTime();
      for (SlurmJob j : l.items()) {
        if (j.name() != null
            && j.name().startsWith(jobPrefix)
            && j.running()
            && started.putIfAbsent(j.name(), true) == null) {
          calls.execute(() -> bind(j));
        }
      }
    } catch (RuntimeException e) {
      fail("list jobs", e); // the next poll lists again
    }
  }

  private void bind(SlurmJob j) {
    String name = j.name().substring(jobPrefix.length());
    Seen s = pods.get(name);
    String slurmNode = j.nodeList().isEmpty() ? j.nodes() : j.nodeList().get(0);
    String node = k8sNodeOfSlurmNode.get(slurmNode);
    if (s == null || node == null) {
      fail("bind " + name, new IllegalStateException("no pod seen or no node for " + slurmNode));
      return;
    }
    try {
      temporal.newUntypedWorkflowStub(s.workflowId()).signal("observe", FloorWorkflow.RUNNING);
      Binding b =
          new BindingBuilder()
              .withNewMetadata()
              .withName(name)
              .withNamespace(namespace)
              .withUid(s.uid())
              .withAnnotations(
                  Map.of(
                      "tandem.dev/job-id",
                      Long.toString(j.id()),
                      BenchPods.SLURM_NODE_ANNOTATION,
                      slurmNode))
              .endMetadata()
              .withNewTarget()
              .withApiVersion("v1")
              .withKind("Node")
              .withName(node)
              .endTarget()
              .build();
      k8s.bindings().inNamespace(namespace).resource(b).create();
      String status =
          "{\"metadata\":{\"uid\":\""
              + s.uid()
              + "\"},\"status\":{\"conditions\":[{\"type\":\"SlurmScheduled\",\"status\":\"True\","
              + "\"reason\":\"SlurmJobRunning\",\"lastTransitionTime\":\""
              + Instant.now().truncatedTo(ChronoUnit.SECONDS)
              + "\"}]}}";
      try {
        k8s.pods()
            .inNamespace(namespace)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(namespace)
                    .endMetadata()
                    .build())
            .subresource("status")
            .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), status);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        // The bench deletes a pod as soon as it sees it bound: gone before its condition.
      }
    } catch (RuntimeException e) {
      fail("bind " + name, e);
    }
  }

  private void ended(String name) {
    Seen s = pods.get(name);
    Long job = jobs.remove(name);
    try {
      if (s != null) {
        temporal.newUntypedWorkflowStub(s.workflowId()).signal("observe", FloorWorkflow.ENDED);
      }
      if (job != null) {
        slurm.cancel(job, null);
      }
    } catch (RuntimeException e) {
      fail("end " + name, e);
    }
  }

  /** Jobs submitted and not yet cancelled (their pods not yet seen deleted). */
  int open() {
    return jobs.size();
  }

  /** How long each job listing took, asked → answered and read. */
  List<Double> listingsMs() {
    return List.copyOf(listingsMs);
  }

  private void fail(String what, RuntimeException e) {
    if (failures.incrementAndGet() <= 3) {
      firstFailures.add(what + ": " + e);
    }
  }

  /** The first three failed calls, what they were and why. */
  List<String> firstFailures() {
    return List.copyOf(firstFailures);
  }

  /** Calls that failed (each is also a pod not bound or a job left for {@link #close}). */
  int failures() {
    return failures.get();
  }

  /**
   * Waits (at most {@code limit}) until every submitted job was cancelled and Slurm lists none of
   * them as waiting or running any more (a cancelled job holds its CPUs while it completes, and the
   * next part must start on free nodes, as it does after Tandem's pods); returns how many were
   * left, by either count.
   */
  int awaitDrained(Duration limit) throws InterruptedException {
    long end = System.nanoTime() + limit.toNanos();
    while (open() > 0 && System.nanoTime() < end) {
      Thread.sleep(100);
    }
    int unfinished = unfinished();
    while (unfinished > 0 && System.nanoTime() < end) {
      Thread.sleep(500);
      unfinished = unfinished();
    }
    return Math.max(open(), unfinished);
  }

  private int unfinished() {
    return RawSlurmRun.unfinished(slurm, jobPrefix).size();
  }

  @Override
  public void close() {
    informer.close();
    poller.shutdownNow();
    calls.shutdown();
    try {
      calls.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    workers.shutdownNow();
    RawSlurmRun.cancelUnfinished(slurm, jobPrefix, (id, e) -> fail("cancel job " + id, e));
  }
}
