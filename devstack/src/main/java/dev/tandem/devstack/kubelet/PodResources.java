package dev.tandem.devstack.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A pod's effective requests as the scheduler and the kubelet count them: per resource, the larger
 * of the sum over its containers and the largest init container (init containers run one at a time,
 * before the others), plus {@code spec.overhead}.
 */
final class PodResources {
  private PodResources() {}

  static Map<String, BigDecimal> requests(Pod pod) {
    Map<String, BigDecimal> sum = new TreeMap<>();
    for (Container c : pod.getSpec().getContainers()) {
      add(sum, c);
    }
    List<Container> init = pod.getSpec().getInitContainers();
    if (init != null) {
      for (Container c : init) {
        Map<String, BigDecimal> one = new TreeMap<>();
        add(one, c);
        one.forEach((r, v) -> sum.merge(r, v, BigDecimal::max));
      }
    }
    if (pod.getSpec().getOverhead() != null) {
      pod.getSpec().getOverhead().forEach((r, q) -> sum.merge(r, amount(q), BigDecimal::add));
    }
    return sum;
  }

  private static void add(Map<String, BigDecimal> into, Container c) {
    if (c.getResources() != null && c.getResources().getRequests() != null) {
      c.getResources().getRequests().forEach((r, q) -> into.merge(r, amount(q), BigDecimal::add));
    }
  }

  static BigDecimal amount(Quantity q) {
    return Quantity.getAmountInBytes(q);
  }

  /** How the kubelet prints an amount: cpu in millicores, everything else in units. */
  static long shown(String resource, BigDecimal v) {
    BigDecimal x = resource.equals("cpu") ? v.movePointRight(3) : v;
    return x.setScale(0, java.math.RoundingMode.CEILING).longValueExact();
  }
}
