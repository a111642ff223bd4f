package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CompactActivityFailuresTest {
  private static RuntimeException deep(int depth) {
    return depth == 0
        ? new IllegalStateException("HTTP 503 from the API server: " + "x".repeat(4000))
        : deep(depth - 1);
  }

  @Test
  void aLongExceptionChainBecomesOneShortFailureOfTheSameType() {
    RuntimeException e = new RuntimeException("cannot get pod e2e-0", new IOException("HTTP 503"));
    ApplicationFailure f = (ApplicationFailure) CompactActivityFailures.compact(e);
    assertEquals(RuntimeException.class.getName(), f.getType());
    assertEquals("cannot get pod e2e-0; caused by IOException: HTTP 503", f.getOriginalMessage());
    assertNull(f.getCause());
    assertTrue(!f.isNonRetryable());

    ApplicationFailure big = (ApplicationFailure) CompactActivityFailures.compact(deep(200));
    assertEquals(CompactActivityFailures.MAX_MESSAGE, big.getOriginalMessage().length());
    assertTrue(big.getOriginalMessage().startsWith("HTTP 503 from the API server"));
    assertEquals(CompactActivityFailures.FRAMES, big.getStackTrace().length);
  }

  @Test
  void anApplicationFailureKeepsItsTypeRetryabilityAndDelay() {
    ApplicationFailure a =
        ApplicationFailure.newBuilder()
            .setType("SlurmRejected")
            .setMessage("partition gone")
            .setNonRetryable(true)
            .setNextRetryDelay(Duration.ofSeconds(3))
            .setCause(new IOException("400"))
            .build();
    ApplicationFailure f = (ApplicationFailure) CompactActivityFailures.compact(a);
    assertEquals("SlurmRejected", f.getType());
    assertTrue(f.isNonRetryable());
    assertEquals(Duration.ofSeconds(3), f.getNextRetryDelay());
    assertEquals("partition gone; caused by IOException: 400", f.getOriginalMessage());
    assertNull(f.getCause());
  }

  @Test
  void otherTemporalFailuresPassAsTheyAre() {
    CanceledFailure c = new CanceledFailure("stop");
    assertSame(c, CompactActivityFailures.compact(c));
  }
}
