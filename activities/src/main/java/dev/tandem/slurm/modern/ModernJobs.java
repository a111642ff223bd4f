package dev.tandem.slurm.modern;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.SlurmUnavailableException;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Job listings of data parsers v0.0.41–v0.0.44 read as a token stream. A listing holds every job
 * slurmctld keeps (finished ones for MinJobAge), 15 KB and ~110 fields a job, of which {@link
 * ModernParsers#job} reads {@link #FIELDS}: each job becomes a tree of those fields only, every
 * other one is skipped unread. The top-level fields but the {@code jobs} array (meta, errors,
 * warnings, last_update: small) are read whole, so the checks on them are the tree code's own.
 *
 * <p>The outcome is what {@code ModernSlurmClient} made of the whole answer as one tree, failure by
 * failure; the tests hold the two equal with the tree-based code kept there.
 */
final class ModernJobs {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** The job fields {@link ModernParsers#job} reads: one it reads but this lacks would be lost. */
  static final Set<String> FIELDS =
      Set.of(
          "job_id",
          "job_state",
          "nodes",
          "time_limit",
          "name",
          "comment",
          "state_reason",
          "partition",
          "account",
          "qos",
          "user_name",
          "restart_cnt",
          "submit_time",
          "start_time",
          "end_time",
          "preempt_time",
          "exit_code",
          "node_count",
          "minimum_cpus_per_node",
          "memory_per_node",
          "memory_per_cpu",
          "tres_per_node",
          "features");

  private ModernJobs() {}

  /** What the stream held: the top level but a {@code jobs} array, and that array's jobs. */
  private static final class Answer {
    final ObjectNode rest = NODES.objectNode();
    List<SlurmJob> jobs; // null: no jobs array
    int count;
    int failedAt = -1;
    RuntimeException failure;
  }

  /**
   * The listing in a {@code GET /jobs/} answer (not a 304): as {@link Responses#requireOk}, then
   * "unchanged" for an empty list without news (see {@code ModernSlurmClient.listJobs}).
   */
  static Listing<SlurmJob> listing(String ctx, Response r, Instant since) {
    if (!r.ok()) {
      throw SlurmErrors.toException(ctx, r.status(), Responses.parseQuietly(r.body()), r.body());
    }
    Answer a;
    try (JsonParser p = r.jsonParser(Json.MAPPER.getFactory())) {
      a = read(p);
    } catch (IOException e) {
      a = null; // not JSON, as Responses.parseQuietly sees it
    }
    if (a == null) {
      throw Responses.notAnObject(ctx, r);
    }
    JsonNode body = Responses.requireNoErrors(ctx, r, a.rest);
    boolean empty = a.jobs != null ? a.count == 0 : body.path("jobs").isEmpty();
    Instant lastUpdate = Json.instant(body.get("last_update"));
    if (since != null && empty && (lastUpdate == null || Responses.noJobChanges(body))) {
      return Listing.unchanged(since);
    }
    if (a.jobs == null) {
      throw Responses.noList(ctx, body, "jobs");
    }
    if (a.failure != null) {
      throw unreadable(ctx, r, a);
    }
    return new Listing<>(true, a.jobs, lastUpdate);
  }

  /**
   * The answer, or null when the body is no JSON object. A key given twice keeps its last value.
   */
  private static Answer read(JsonParser p) throws IOException {
    JsonToken t = p.nextToken();
    if (t != JsonToken.START_OBJECT) {
      if (t != null) {
        p.skipChildren(); // an unfinished array is not JSON either
      }
      return null;
    }
    Answer a = new Answer();
    String key;
    while ((key = p.nextFieldName()) != null) {
      JsonToken v = p.nextToken();
      boolean jobs = "jobs".equals(key);
      if (jobs) {
        a.jobs = null;
        a.failure = null;
        a.rest.remove(key);
      }
      if (jobs && v == JsonToken.START_ARRAY) {
        readJobs(p, a);
      } else {
        a.rest.set(key, tree(p, v));
      }
    }
    return a;
  }

  private static void readJobs(JsonParser p, Answer a) throws IOException {
    a.jobs = new ArrayList<>();
    a.count = 0;
    a.failedAt = -1;
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY && t != null) {
      JsonNode job = t == JsonToken.START_OBJECT ? jobFields(p) : tree(p, t);
      if (a.failure == null) {
        try {
          a.jobs.add(ModernParsers.job(job));
        } catch (RuntimeException e) {
          a.failedAt = a.count; // reported after the errors check, as the tree code did
          a.failure = e;
        }
      }
      a.count++;
    }
  }

  /** The job object at the current token, with the fields in {@link #FIELDS} only. */
  private static ObjectNode jobFields(JsonParser p) throws IOException {
    ObjectNode job = NODES.objectNode();
    String key;
    while ((key = p.nextFieldName()) != null) {
      JsonToken v = p.nextToken();
      if (FIELDS.contains(key)) {
        job.set(key, tree(p, v));
      } else {
        p.skipChildren();
      }
    }
    return job;
  }

  /**
   * As {@code parseAll} reported the first job it could not read. Its message may quote the whole
   * job ("job without a job_id: {...}"), which the stream did not keep: the answer is read again as
   * a tree for that (a broken answer, once).
   */
  private static SlurmUnavailableException unreadable(String ctx, Response r, Answer a) {
    RuntimeException e = a.failure;
    JsonNode whole = Responses.parseQuietly(r.body());
    JsonNode job = whole == null ? null : whole.path("jobs").get(a.failedAt);
    if (job != null) {
      try {
        ModernParsers.job(job);
      } catch (RuntimeException exact) {
        e = exact;
      }
    }
    return new SlurmUnavailableException(ctx + ": unreadable entry: " + e.getMessage(), e);
  }

  /**
   * The value at the current token as the tree Jackson's {@code ObjectMapper} builds with default
   * settings: ints as int, long or BigInteger nodes by size, other numbers as doubles, a repeated
   * key with its last value. Used for small values, so without the mapper's per-call set-up.
   */
  static JsonNode tree(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case START_OBJECT -> {
        ObjectNode o = NODES.objectNode();
        String key;
        while ((key = p.nextFieldName()) != null) {
          o.set(key, tree(p, p.nextToken()));
        }
        return o;
      }
      case START_ARRAY -> {
        ArrayNode a = NODES.arrayNode();
        JsonToken e;
        while ((e = p.nextToken()) != JsonToken.END_ARRAY && e != null) {
          a.add(tree(p, e));
        }
        return a;
      }
      case VALUE_STRING -> {
        return NODES.textNode(p.getText());
      }
      case VALUE_NUMBER_INT -> {
        return switch (p.getNumberType()) {
          case INT -> NODES.numberNode(p.getIntValue());
          case LONG -> NODES.numberNode(p.getLongValue());
          default -> NODES.numberNode(p.getBigIntegerValue());
        };
      }
      case VALUE_NUMBER_FLOAT -> {
        return NODES.numberNode(p.getDoubleValue());
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        return NODES.booleanNode(t == JsonToken.VALUE_TRUE);
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> throw new JsonParseException(p, "unexpected token " + t);
    }
  }
}
