package dev.tandem.k8s;

import static dev.tandem.k8s.Fixtures.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.tandem.workflows.model.SlurmSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

class RevisionsTest {
  private static final SlurmSettings S =
      new SlurmSettings(List.of("gpu"), List.of("h100"), "gpu:8", 5);

  @Test
  void keyOrderNullsAndEmptyArraysDoNotMatter() {
    String a =
        Revisions.of(
            json(
                "{\"spec\":{\"containers\":[{\"name\":\"s\",\"image\":\"i\"}],\"tolerations\":[]}}"),
            S);
    String b =
        Revisions.of(
            json(
                "{\"metadata\":null,\"spec\":{\"containers\":[{\"image\":\"i\",\"name\":\"s\",\"args\":null}]}}"),
            S);
    assertEquals(a, b);
    assertEquals(10, a.length());
  }

  @Test
  void contentMatters() {
    String base =
        Revisions.of(json("{\"spec\":{\"containers\":[{\"name\":\"s\",\"image\":\"i\"}]}}"), S);
    // an empty object is meaningful (emptyDir: {}), so it is kept
    assertNotEquals(
        base,
        Revisions.of(
            json("{\"spec\":{\"containers\":[{\"name\":\"s\",\"image\":\"i\",\"x\":{}}]}}"), S));
    // array order is meaningful (containers, args)
    assertNotEquals(Revisions.of(json("{\"a\":[1,2]}"), S), Revisions.of(json("{\"a\":[2,1]}"), S));
    assertNotEquals(
        base,
        Revisions.of(
            json("{\"spec\":{\"containers\":[{\"name\":\"s\",\"image\":\"i\"}]}}"),
            new SlurmSettings(List.of("gpu"), List.of("h100"), "gpu:8", 6)));
  }

  /** Pinned: a change here rolls every node of every NodeSet on upgrade (see Revisions). */
  @Test
  void definitionIsStable() {
    assertEquals(
        "{\"a\":{\"b\":1,\"c\":[{}]},\"z\":\"x\"}",
        Revisions.canonicalString(
            json("{\"z\":\"x\",\"a\":{\"c\":[{}],\"b\":1,\"d\":null,\"e\":[]}}")));
    assertEquals(
        Revisions.hash(
            "{\"slurm\":{\"features\":[\"h100\"],\"gres\":\"gpu:8\",\"partitions\":[\"gpu\"],\"weight\":5},\"template\":{\"k\":1}}"),
        Revisions.of(json("{\"k\":1}"), S));
    assertEquals("2c26b46b68", Revisions.hash("foo"));
  }
}
