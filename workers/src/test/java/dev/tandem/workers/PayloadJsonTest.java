package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import dev.tandem.workflows.model.NodeCommand;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import org.junit.jupiter.api.Test;

/** The worker's converter shares Jackson's buffers and writes the same JSON as the default. */
class PayloadJsonTest {

  @Test
  void buffersComeFromOneSharedPoolNotFromEachThread() {
    assertFalse(
        PayloadJson.mapper().getFactory()._getRecyclerPool()
            instanceof JsonRecyclerPools.ThreadLocalPool,
        "a thread-local pool keeps buffers for every parked workflow thread");
  }

  @Test
  void payloadsAreTheDefaultConvertersBytesBothWays() {
    NodeCommand c = NodeCommand.of("manual", "disk check");
    DataConverter ours = PayloadJson.converter();
    DataConverter standard = DefaultDataConverter.newDefaultInstance();
    Payload a = ours.toPayload(c).orElseThrow();
    Payload b = standard.toPayload(c).orElseThrow();
    assertEquals(b, a);
    assertEquals(c, ours.fromPayload(b, NodeCommand.class, NodeCommand.class));
    assertEquals(c, standard.fromPayload(a, NodeCommand.class, NodeCommand.class));
  }
}
