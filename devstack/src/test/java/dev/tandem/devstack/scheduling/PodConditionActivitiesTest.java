package dev.tandem.devstack.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** setPodCondition on the status subresource, and recordEvent. */
class PodConditionActivitiesTest extends SchedulingApiBase {
  private static final Instant T1 = Instant.parse("2026-01-01T00:00:01Z");
  private static final Instant T2 = Instant.parse("2026-01-01T00:00:02Z");
  private static final Instant T3 = Instant.parse("2026-01-01T00:00:03Z");

  private static PodCondition condition(String name, String type) {
    List<PodCondition> all = get(ns, name).getStatus().getConditions();
    return all.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  @Test
  void replacesTheSameTypeKeepsOthersAndMovesTransitionTimeOnlyOnStatusChange() {
    Pod p = createPod(ns, uniqueName("cond"), Map.of());
    String name = p.getMetadata().getName();
    String uid = p.getMetadata().getUid();
    bindRaw(ns, name, n1); // PodScheduled=True, which must survive

    activities.setPodCondition(
        ns, name, uid, new Condition("SlurmScheduled", "False", "JobPending", "waiting", T1));
    PodCondition c = condition(name, "SlurmScheduled");
    assertEquals("False", c.getStatus());
    assertEquals("JobPending", c.getReason());
    assertEquals(T1.toString(), c.getLastTransitionTime());

    String rv = get(ns, name).getMetadata().getResourceVersion();
    activities.setPodCondition(
        ns, name, uid, new Condition("SlurmScheduled", "False", "JobPending", "waiting", T2));
    assertEquals(rv, get(ns, name).getMetadata().getResourceVersion(), "same condition: no write");

    activities.setPodCondition(
        ns, name, uid, new Condition("SlurmScheduled", "False", "JobPending", "still", T2));
    c = condition(name, "SlurmScheduled");
    assertEquals("still", c.getMessage());
    assertEquals(T1.toString(), c.getLastTransitionTime(), "status unchanged: time kept");

    activities.setPodCondition(
        ns, name, uid, new Condition("SlurmScheduled", "True", "JobRunning", "job 7", T3));
    c = condition(name, "SlurmScheduled");
    assertEquals("True", c.getStatus());
    assertEquals(T3.toString(), c.getLastTransitionTime());

    List<PodCondition> all = get(ns, name).getStatus().getConditions();
    assertEquals(1, all.stream().filter(x -> "SlurmScheduled".equals(x.getType())).count());
    assertNotNull(condition(name, "PodScheduled"));
  }

  @Test
  void withoutATimeTheTransitionIsNow() {
    Pod p = createPod(ns, uniqueName("cond"), Map.of());
    activities.setPodCondition(
        ns,
        p.getMetadata().getName(),
        p.getMetadata().getUid(),
        new Condition("SlurmPreempted", "True", "Preempted", "by job 9", null));
    assertEquals(
        NOW.toString(),
        condition(p.getMetadata().getName(), "SlurmPreempted").getLastTransitionTime());
  }

  @Test
  void anotherUidOrNoPodIsLeftAlone() {
    Pod p = createPod(ns, uniqueName("cond"), Map.of());
    String name = p.getMetadata().getName();
    activities.setPodCondition(
        ns, name, "other-uid", new Condition("SlurmScheduled", "True", "JobRunning", "", T1));
    Pod after = get(ns, name);
    assertTrue(
        after.getStatus() == null
            || after.getStatus().getConditions() == null
            || condition(name, "SlurmScheduled") == null);
    // No pod: fine, nothing thrown.
    activities.setPodCondition(
        ns, "no-such-pod", "u", new Condition("SlurmScheduled", "True", "JobRunning", "", T1));
    assertNull(get(ns, "no-such-pod"));
  }

  @Test
  void recordsAnEventOnThePod() {
    Pod p = createPod(ns, uniqueName("event"), Map.of());
    activities.recordEvent(
        new EventRequest(
            ns, "Pod", p.getMetadata().getName(), "Warning", "InvalidPod", "no cpu request"));
    List<Event> events = client.v1().events().inNamespace(ns).list().getItems();
    assertTrue(
        events.stream()
            .anyMatch(
                e ->
                    p.getMetadata().getUid().equals(e.getInvolvedObject().getUid())
                        && "InvalidPod".equals(e.getReason())
                        && "Warning".equals(e.getType())),
        events.toString());
  }

  @Test
  void anEventNamingItsUidCostsNoRead() {
    Pod p = createPod(ns, uniqueName("event"), Map.of());
    var reads = failPodReads();
    try {
      activities.recordEvent(
          new EventRequest(
              ns,
              "Pod",
              p.getMetadata().getName(),
              "Normal",
              "Scheduled",
              "bound",
              p.getMetadata().getUid()));
      assertEquals(0, reads.hits());
    } finally {
      reads.cancel();
    }
    assertTrue(
        client.v1().events().inNamespace(ns).list().getItems().stream()
            .anyMatch(
                e ->
                    p.getMetadata().getUid().equals(e.getInvolvedObject().getUid())
                        && "Scheduled".equals(e.getReason())));
  }
}
