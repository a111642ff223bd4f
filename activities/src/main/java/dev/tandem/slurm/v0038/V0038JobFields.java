package dev.tandem.slurm.v0038;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tandem.slurm.Hostlist;
import dev.tandem.slurm.SlurmJob;
import java.io.IOException;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Locale;
import java.util.Set;

/**
 * The fields of one 22.05 job that {@link SlurmJob} needs, read from a token stream with the
 * meaning Jackson's tree gives them: a text field is the node's {@code asText()} ({@code 42} reads
 * "42", {@code 1e2} "100.0", an object or array "", which is null like "" and JSON null); a number
 * field is the node's {@code asLong()} when {@code canConvertToLong()} (a fraction truncated, text
 * never), else the default. Reused from job to job by {@link V0038Jobs}.
 */
final class V0038JobFields {
  private String name;
  private String comment;
  private String jobState;
  private String stateReason;
  private String nodes;
  private String partition;
  private String account;
  private String qos;
  private String userName;
  private String tresPerNode;
  private String features;
  private long jobId;
  private long restartCnt;
  private long submitTime;
  private long startTime;
  private long endTime;
  private long preemptTime;
  private long timeLimit;
  private long nodeCount;
  private long minimumCpusPerNode;
  private long memoryPerNode;
  private long memoryPerCpu;
  private Integer exitCode;

  /** Reads the job at {@code t} (anything but an object reads as a job without fields). */
  void read(JsonParser p, JsonToken t) throws IOException {
    name = comment = jobState = stateReason = nodes = partition = account = qos = userName = null;
    tresPerNode = features = null;
    jobId = restartCnt = submitTime = startTime = endTime = preemptTime = 0;
    nodeCount = minimumCpusPerNode = memoryPerNode = memoryPerCpu = 0;
    timeLimit = -1;
    exitCode = null;
    if (t != JsonToken.START_OBJECT) {
      p.skipChildren();
      return;
    }
    String key;
    while ((key = p.nextFieldName()) != null) {
      JsonToken v = p.nextToken();
      switch (key) {
        case "job_id" -> jobId = number(p, v, 0);
        case "name" -> name = text(p, v);
        case "comment" -> comment = text(p, v);
        case "job_state" -> jobState = text(p, v);
        case "state_reason" -> stateReason = text(p, v);
        case "nodes" -> nodes = text(p, v);
        case "partition" -> partition = text(p, v);
        case "account" -> account = text(p, v);
        case "qos" -> qos = text(p, v);
        case "user_name" -> userName = text(p, v);
        case "restart_cnt" -> restartCnt = number(p, v, 0);
        case "submit_time" -> submitTime = number(p, v, 0);
        case "start_time" -> startTime = number(p, v, 0);
        case "end_time" -> endTime = number(p, v, 0);
        case "preempt_time" -> preemptTime = number(p, v, 0);
        case "time_limit" -> timeLimit = number(p, v, -1);
        case "exit_code" -> exitCode = intValue(p, v);
        case "node_count" -> nodeCount = number(p, v, 0);
        case "minimum_cpus_per_node" -> minimumCpusPerNode = number(p, v, 0);
        case "memory_per_node" -> memoryPerNode = number(p, v, 0);
        case "memory_per_cpu" -> memoryPerCpu = number(p, v, 0);
        case "tres_per_node" -> tresPerNode = text(p, v);
        case "features" -> features = text(p, v);
        default -> p.skipChildren();
      }
    }
  }

  /** The job, as the tree-based reading made it; Hostlist may refuse {@code nodes}. */
  SlurmJob job() {
    String state = jobState == null ? "UNKNOWN" : jobState.toUpperCase(Locale.ROOT);
    boolean ended = !V0038Json.NOT_ENDED.contains(state);
    return new SlurmJob(
        jobId,
        name,
        comment,
        state,
        Set.of(),
        stateReason,
        nodes,
        Hostlist.expand(nodes),
        partition,
        account,
        qos,
        userName,
        (int) restartCnt,
        instant(submitTime),
        // A pending job's start_time is an estimate, a live one's end_time start + limit.
        "PENDING".equals(state) ? null : instant(startTime),
        ended ? instant(endTime) : null,
        instant(preemptTime),
        timeLimit < 0 || timeLimit >= V0038Json.NO_VAL32 ? null : timeLimit,
        exitCode == null ? null : V0038Json.exitCode(exitCode),
        V0038Json.request(
            nodeCount, minimumCpusPerNode, memoryPerNode, memoryPerCpu, tresPerNode, features));
  }

  /** Epoch seconds, with 0 (Slurm's "never") and NO_VAL as null. */
  private static Instant instant(long s) {
    return s <= 0 || s >= V0038Json.NO_VAL32 ? null : Instant.ofEpochSecond(s);
  }

  /** The value's {@code asText()}, with "" (which containers give) and null as null. */
  static String text(JsonParser p, JsonToken t) throws IOException {
    String s;
    switch (t) {
      case VALUE_STRING -> s = p.getText();
      case VALUE_NUMBER_INT -> s = p.getNumberValue().toString();
      case VALUE_NUMBER_FLOAT -> s = Double.toString(p.getDoubleValue());
      case VALUE_TRUE -> s = "true";
      case VALUE_FALSE -> s = "false";
      default -> {
        p.skipChildren();
        return null;
      }
    }
    return s.isEmpty() ? null : s;
  }

  /** The value's {@code asLong()} if it {@code canConvertToLong()}, else {@code dflt}. */
  static long number(JsonParser p, JsonToken t, long dflt) throws IOException {
    if (t == JsonToken.VALUE_NUMBER_INT) {
      if (p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
        return p.getLongValue();
      }
      BigInteger b = p.getBigIntegerValue();
      return b.bitLength() < 64 ? b.longValue() : dflt;
    }
    if (t == JsonToken.VALUE_NUMBER_FLOAT) {
      double d = p.getDoubleValue();
      return d >= Long.MIN_VALUE && d <= Long.MAX_VALUE ? (long) d : dflt;
    }
    p.skipChildren();
    return dflt;
  }

  /** The value's {@code asInt()} if it {@code canConvertToInt()}, else null. */
  static Integer intValue(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NUMBER_INT) {
      if (p.getNumberType() == JsonParser.NumberType.INT) {
        return p.getIntValue();
      }
      BigInteger b = p.getBigIntegerValue();
      return b.bitLength() < 32 ? b.intValue() : null;
    }
    if (t == JsonToken.VALUE_NUMBER_FLOAT) {
      double d = p.getDoubleValue();
      return d >= Integer.MIN_VALUE && d <= Integer.MAX_VALUE ? (int) d : null;
    }
    p.skipChildren();
    return null;
  }
}
