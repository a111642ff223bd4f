package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupValidatorTest {
  private static final SchedulingConfig CONFIG = PlaceholderJobsTest.CONFIG;

  private static PodRequest pod(String name, String group, String size, String cpu) {
    return new PodRequest(
        "team",
        name,
        "u-" + name,
        Map.of("cpu", cpu, "memory", "1Gi"),
        Map.of("tandem.dev/pod-group", group, "tandem.dev/group-size", size),
        Map.of(),
        null,
        10L,
        null);
  }

  private static GroupValidator.Verdict check(PodRequest... pods) {
    return GroupValidator.check("team", "g", List.of(pods), CONFIG, null);
  }

  @Test
  void agreeingMembersAreFine() {
    GroupValidator.Verdict v = check(pod("a", "g", "3", "1"), pod("b", "g", "3", "1"));
    assertTrue(v.ok(), v.toString());
    assertEquals(3, v.size());
  }

  @Test
  void theMajoritySizeWinsAndATieGoesToTheFirstMemberByName() {
    GroupValidator.Verdict v =
        check(pod("a", "g", "2", "1"), pod("b", "g", "3", "1"), pod("c", "g", "3", "1"));
    assertEquals(3, v.size());
    assertEquals(List.of("a"), List.copyOf(v.members().keySet()));
    GroupValidator.Verdict tie = check(pod("a", "g", "4", "1"), pod("b", "g", "2", "1"));
    assertEquals(4, tie.size());
    assertTrue(
        tie.members().get("b").get(0).startsWith("annotation tandem.dev/group-size is 2 but"),
        tie.toString());
  }

  @Test
  void aMemberOfAnotherGroupOrNamespaceIsInvalid() {
    PodRequest other =
        new PodRequest(
            "elsewhere",
            "x",
            "u-x",
            Map.of("cpu", "1", "memory", "1Gi"),
            Map.of("tandem.dev/pod-group", "h", "tandem.dev/group-size", "2"),
            Map.of(),
            null,
            10L,
            null);
    GroupValidator.Verdict v = check(pod("a", "g", "2", "1"), other);
    assertEquals(
        List.of(
            "the pod is in namespace elsewhere, not team",
            "annotation tandem.dev/pod-group is \"h\", not g"),
        v.members().get("x"));
  }

  @Test
  void aSingleInvalidPodIsReportedWithItsOwnProblems() {
    GroupValidator.Verdict v = check(pod("a", "g", "2", "0"), pod("b", "g", "2", "1"));
    assertEquals(List.of("requests.cpu \"0\" must be greater than zero"), v.members().get("a"));
    assertTrue(v.group().isEmpty());
  }
}
