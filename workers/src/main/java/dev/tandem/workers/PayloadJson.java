package dev.tandem.workers;

import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;

/**
 * The worker's data converter: Temporal's default, with one change to its JSON mapper. Jackson
 * keeps its read and write buffers (about 16 KiB) per thread by default, and the Java SDK parks one
 * thread per cached workflow: at 5,000 node workflows that is about 100 MiB of buffers kept for
 * threads that read a payload once in a while. Here the buffers come from one bounded pool shared
 * by all threads. The JSON itself is the same as the default converter's, so payloads written by
 * either read with the other.
 */
final class PayloadJson {
  /** Buffers kept when idle; more are made while more threads (de)serialize at once. */
  static final int POOLED_BUFFERS = 64;

  private PayloadJson() {}

  static ObjectMapper mapper() {
    ObjectMapper m = JacksonJsonPayloadConverter.newDefaultObjectMapper();
    m.getFactory().setRecyclerPool(JsonRecyclerPools.newBoundedPool(POOLED_BUFFERS));
    return m;
  }

  static DataConverter converter() {
    return DefaultDataConverter.newDefaultInstance()
        .withPayloadConverterOverrides(new JacksonJsonPayloadConverter(mapper()));
  }
}
