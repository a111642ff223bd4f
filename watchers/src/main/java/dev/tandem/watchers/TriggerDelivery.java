package dev.tandem.watchers;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTrigger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link RemediationWatch} has asked, per scope and trouble, and the delivery of each trigger
 * through the coalescer: steps 2 to 4 of its algorithm (send new trouble once, forget cleared
 * trouble, hold old trouble of a node whose remediation ended Failed, send undelivered triggers
 * again).
 */
final class TriggerDelivery {
  private static final Logger log = LoggerFactory.getLogger(TriggerDelivery.class);

  private enum Delivery {
    PENDING,
    SENT,
    /** Not sent: the node's last remediation ended Failed and this trouble was there already. */
    HELD,
    UNDELIVERED
  }

  private static final class Entry {
    final String signature;
    final String k8sNode;
    final RemediationTrigger trigger;
    final boolean guarded;
    Delivery state = Delivery.PENDING;

    Entry(String signature, String k8sNode, RemediationTrigger trigger, boolean guarded) {
      this.signature = signature;
      this.k8sNode = k8sNode;
      this.trigger = trigger;
      this.guarded = guarded;
    }
  }

  /** One scope's memory; guarded by its own monitor. */
  private static final class Scope {
    final Map<String, Entry> entries = new HashMap<>();
    boolean observed;
  }

  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Duration redeliverAfter;
  private final Consumer<String> onSent;
  private final Map<String, Scope> scopes = new ConcurrentHashMap<>();

  /**
   * @param onSent told the Kubernetes node of every trigger Temporal accepted
   */
  TriggerDelivery(
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Duration redeliverAfter,
      Consumer<String> onSent) {
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.redeliverAfter = redeliverAfter;
    this.onSent = onSent;
  }

  /**
   * One observation of a scope: {@code want} maps each trouble's signature to its trigger; null
   * forgets the scope (its policy is off, or it is gone).
   */
  void observe(String scopeKey, String k8sNode, Map<String, RemediationTrigger> want) {
    if (want == null) {
      scopes.remove(scopeKey); // policy off: a later policy starts from a first observation
      return;
    }
    Scope s = scopes.computeIfAbsent(scopeKey, k -> new Scope());
    List<Entry> send = new ArrayList<>();
    synchronized (s) {
      boolean first = !s.observed;
      s.observed = true;
      s.entries.keySet().retainAll(want.keySet());
      for (Map.Entry<String, RemediationTrigger> w : want.entrySet()) {
        Entry e = s.entries.get(w.getKey());
        if (e == null) {
          e = new Entry(w.getKey(), k8sNode, w.getValue(), first);
          s.entries.put(w.getKey(), e);
          send.add(e);
        } else if (e.state == Delivery.UNDELIVERED) {
          e.state = Delivery.PENDING;
          send.add(e);
        }
      }
    }
    for (Entry e : send) {
      submit(scopeKey, s, e);
    }
  }

  private void submit(String scopeKey, Scope s, Entry e) {
    coalescer.submit(
        "remediation:" + scopeKey + ":" + e.signature,
        () -> {
          if (!current(scopeKey, s, e)) {
            return; // cleared (or the policy turned off) before it was sent: nothing to say
          }
          if (e.guarded
              && signals.remediationEnded(e.k8sNode).orElse(null) == RemediationStep.FAILED) {
            log.info(
                "not restarting the remediation of {}: it ended Failed and {} is still there",
                e.k8sNode,
                e.trigger.cause());
            settle(s, e, Delivery.HELD);
            metrics.signal(Names.SIGNAL_TRIGGER, "held");
            return;
          }
          signals.remediation(e.k8sNode, e.trigger);
          settle(s, e, Delivery.SENT);
          onSent.accept(e.k8sNode);
          metrics.signal(Names.SIGNAL_TRIGGER, "sent");
        },
        () -> {
          settle(s, e, Delivery.UNDELIVERED);
          coalescer.later(redeliverAfter, () -> redeliver(scopeKey, s, e));
        });
  }

  private void redeliver(String scopeKey, Scope s, Entry e) {
    synchronized (s) {
      if (scopes.get(scopeKey) != s
          || s.entries.get(e.signature) != e
          || e.state != Delivery.UNDELIVERED) {
        return;
      }
      e.state = Delivery.PENDING;
    }
    submit(scopeKey, s, e);
  }

  private boolean current(String scopeKey, Scope s, Entry e) {
    synchronized (s) {
      return scopes.get(scopeKey) == s && s.entries.get(e.signature) == e;
    }
  }

  private static void settle(Scope s, Entry e, Delivery d) {
    synchronized (s) {
      e.state = d;
    }
  }
}
