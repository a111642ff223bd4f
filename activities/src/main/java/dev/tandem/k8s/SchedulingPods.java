package dev.tandem.k8s;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.schedule.PodRequest;
import dev.tandem.workflows.schedule.Quantities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pods that Slurm schedules ({@code spec.schedulerName: tandem-slurm}) and what their scheduling
 * workflow is told about them ({@link PodRequest}).
 */
public final class SchedulingPods {
  private SchedulingPods() {}

  private static final BigDecimal KI = BigDecimal.valueOf(1L << 10);
  private static final BigDecimal MI = BigDecimal.valueOf(1L << 20);
  private static final BigDecimal GI = BigDecimal.valueOf(1L << 30);
  private static final BigDecimal MILLI = new BigDecimal("0.001");

  /** Whether the pod asks Tandem (through Slurm) to schedule it. */
  public static boolean isTandemScheduled(Pod pod) {
    return pod.getSpec() != null && Names.SCHEDULER_NAME.equals(pod.getSpec().getSchedulerName());
  }

  /** The pod as its scheduling workflow needs it. */
  public static PodRequest request(Pod pod) {
    var meta = pod.getMetadata();
    PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
    return new PodRequest(
        meta.getNamespace(),
        meta.getName(),
        meta.getUid(),
        requests(spec),
        meta.getAnnotations(),
        spec.getNodeSelector(),
        spec.getPriorityClassName(),
        spec.getTerminationGracePeriodSeconds(),
        spec.getNodeName());
  }

  /**
   * The pod's effective requests, as the Kubernetes scheduler and kubelet compute them:
   *
   * <ol>
   *   <li>Sum the app containers' requests (a resource with only a limit requests the limit, as the
   *       API server's defaulting does).
   *   <li>Walk the init containers in order. A sidecar ({@code restartPolicy: Always}) keeps
   *       running: it adds to the sum, and to what every later init container runs next to. A plain
   *       init container runs alone with the sidecars started before it.
   *   <li>Per resource, take the larger of the sum and the largest init step.
   *   <li>Add the pod overhead (RuntimeClass), also for resources no container requests.
   * </ol>
   *
   * Quantities come back in a form {@link Quantities#parse} reads; a quantity that cannot be read
   * is passed on as written, so the workflow's validation reports it instead of it being dropped.
   */
  static Map<String, String> requests(PodSpec spec) {
    Map<String, BigDecimal> sum = new HashMap<>();
    Map<String, String> unreadable = new TreeMap<>();
    for (Container c : list(spec.getContainers())) {
      add(sum, of(c, unreadable));
    }
    Map<String, BigDecimal> sidecars = new HashMap<>();
    Map<String, BigDecimal> initMax = new HashMap<>();
    for (Container c : list(spec.getInitContainers())) {
      Map<String, BigDecimal> step = of(c, unreadable);
      if ("Always".equals(c.getRestartPolicy())) {
        add(sum, step);
        add(sidecars, step);
        step = new HashMap<>(sidecars);
      } else {
        add(step, sidecars);
      }
      step.forEach((r, v) -> initMax.merge(r, v, BigDecimal::max));
    }
    Map<String, BigDecimal> effective = new HashMap<>(sum);
    initMax.forEach((r, v) -> effective.merge(r, v, BigDecimal::max));
    if (spec.getOverhead() != null) {
      for (var e : spec.getOverhead().entrySet()) {
        BigDecimal v = value(e.getValue());
        if (v == null) {
          unreadable.put(e.getKey(), text(e.getValue()));
        } else {
          effective.merge(e.getKey(), v, BigDecimal::add);
        }
      }
    }
    Map<String, String> out = new TreeMap<>();
    effective.forEach((r, v) -> out.put(r, format(r, v)));
    out.putAll(unreadable);
    return out;
  }

  private static Map<String, BigDecimal> of(Container c, Map<String, String> unreadable) {
    Map<String, BigDecimal> out = new HashMap<>();
    ResourceRequirements rr = c.getResources();
    if (rr == null) {
      return out;
    }
    Map<String, Quantity> req = new HashMap<>();
    if (rr.getLimits() != null) {
      req.putAll(rr.getLimits());
    }
    if (rr.getRequests() != null) {
      req.putAll(rr.getRequests());
    }
    for (var e : req.entrySet()) {
      BigDecimal v = value(e.getValue());
      if (v == null) {
        unreadable.put(e.getKey(), text(e.getValue()));
      } else {
        out.put(e.getKey(), v);
      }
    }
    return out;
  }

  private static void add(Map<String, BigDecimal> into, Map<String, BigDecimal> more) {
    more.forEach((r, v) -> into.merge(r, v, BigDecimal::add));
  }

  private static <T> List<T> list(List<T> l) {
    return l == null ? List.of() : l;
  }

  private static String text(Quantity q) {
    if (q == null) {
      return "";
    }
    return (q.getAmount() == null ? "" : q.getAmount())
        + (q.getFormat() == null ? "" : q.getFormat());
  }

  private static BigDecimal value(Quantity q) {
    return Quantities.parse(text(q));
  }

  /**
   * A readable quantity: CPUs as a whole number or millicores, byte amounts with a binary suffix
   * when exact, anything else as a plain decimal number.
   */
  static String format(String resource, BigDecimal v) {
    BigDecimal n = v.stripTrailingZeros();
    boolean bytes =
        resource.equals("memory")
            || resource.equals("ephemeral-storage")
            || resource.startsWith("hugepages-");
    if (bytes && n.signum() > 0 && isWhole(n)) {
      for (var s : List.of(Map.entry("Gi", GI), Map.entry("Mi", MI), Map.entry("Ki", KI))) {
        BigDecimal[] qr = n.divideAndRemainder(s.getValue());
        if (qr[1].signum() == 0) {
          return qr[0].toBigInteger() + s.getKey();
        }
      }
    }
    if (!isWhole(n) && isWhole(n.divide(MILLI))) {
      return n.divide(MILLI).toBigInteger() + "m";
    }
    return n.toPlainString();
  }

  private static boolean isWhole(BigDecimal n) {
    return n.signum() == 0 || n.scale() <= 0 || n.stripTrailingZeros().scale() <= 0;
  }
}
