package dev.tandem.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.activities.SlurmActivitiesImpl;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.local.LocalSlurm;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.SlurmNodeView;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad-input catalogue (docs/reliability.md): awkward drain reasons (a cordon annotation, {@code
 * tandem drain --reason}) against the real Slurm 22.05, where they travel as {@code scontrol update
 * Reason=...}. What Slurm shows ({@code scontrol show node}, {@code sinfo -R}) must be exactly the
 * reason Tandem set, or Tandem would see its drain as "not yet set" and drain again on every poll.
 */
class BadReasonV0038IT {
  private static LocalSlurm slurm;
  private static SlurmClient client;
  private static SlurmActivitiesImpl activities;
  private static String node;

  @BeforeAll
  static void start() {
    slurm = LocalSlurm.get();
    client = slurm.client();
    activities = new SlurmActivitiesImpl(client, Clock.systemUTC());
    node = slurm.pool("spare").get(3);
    slurm.nodeUp(node);
  }

  @AfterAll
  static void stop() {
    try {
      if (node != null) {
        slurm.nodeDown(node);
      }
    } finally {
      if (client != null) {
        client.close();
      }
    }
  }

  private static void drainAndCheck(String detail, String expectedInSlurm) {
    String reason = DrainReason.format(DrainCause.K8S_CORDON, DrainReason.clean(detail));
    assertEquals(expectedInSlurm, reason);
    SlurmNodeView v = activities.drain(node, reason);
    assertTrue(v.drainFlag(), v.toString());
    assertEquals(expectedInSlurm, v.reason(), "the reason Slurm shows");
    assertEquals(expectedInSlurm, client.getNode(node).reason());
    activities.undrain(node);
    assertTrue(!client.getNode(node).drainFlag(), "lifted");
  }

  /** scontrol used to strip the final quote: Slurm showed {@code ... "hi}. */
  @Test
  void reasonEndingInAQuote() {
    drainAndCheck("he said \"hi\"", "tandem:k8s-cordon: he said \"hi\"");
  }

  @Test
  void reasonStartingWithAQuoteAndHoldingAnEqualsSign() {
    drainAndCheck("\"disk\" State=DOWN", "tandem:k8s-cordon: \"disk\" State=DOWN");
  }

  /** Slurm stores a newline as it is (and scontrol show node then breaks the line). */
  @Test
  void reasonWithNewlinesAndTabs() {
    drainAndCheck("disk\nfull\ton /scratch", "tandem:k8s-cordon: disk full on /scratch");
  }

  /** Slurm takes any length; Tandem keeps 200 characters, never half an emoji. */
  @Test
  void longReasonWithAnEmojiAtTheCut() {
    String detail = "x".repeat(180) + "🚀🚀 and more";
    String expected = "tandem:k8s-cordon: " + "x".repeat(180);
    assertEquals(199, expected.length(), "the emoji at 199..200 is dropped whole");
    drainAndCheck(detail, expected);
  }
}
