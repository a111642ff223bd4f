package dev.tandem.slurm.v0038;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.SlurmUnavailableException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Job answers of slurmrestd 22.05 ({@code GET /jobs}, {@code GET /job/{id}}) read token by token
 * into {@link SlurmJob}s. 22.05 ignores {@code update_time} once anything changed and answers every
 * job slurmctld still holds, finished ones for MinJobAge: about 4 KB and 111 fields per job, of
 * which a {@code SlurmJob} needs 21. Building the whole answer as a tree costs a large share of a
 * busy worker's CPU and allocates the whole answer again; here every other field is skipped unread.
 *
 * <p>The outcome is the tree's, field by field ({@link V0038JobFields}) and failure by failure:
 * malformed JSON anywhere fails the answer, a non-zero error number fails it next (the caller's
 * {@code failure}), then a missing {@code jobs} list, then the first job that cannot be read. A key
 * given twice counts with its last value, as in the tree. The tests hold the two equal
 * (JobListingOracleTest) with the tree-based code kept there.
 */
final class V0038Jobs {
  private static final JsonFactory FACTORY = V0038Json.JSON.getFactory();

  private V0038Jobs() {}

  /** A job answer: whether Slurm reported an error, and its jobs or why they cannot be had. */
  static final class Answer {
    private final Response response;
    private final String context;
    private final boolean slurmErrors;
    private final List<SlurmJob> jobs;
    private final RuntimeException unreadable;

    private Answer(
        Response response,
        String context,
        boolean slurmErrors,
        List<SlurmJob> jobs,
        RuntimeException unreadable) {
      this.response = response;
      this.context = context;
      this.slurmErrors = slurmErrors;
      this.jobs = jobs;
      this.unreadable = unreadable;
    }

    /** Whether {@code errors} names a non-zero error number: the answer is a failure. */
    boolean slurmErrors() {
      return slurmErrors;
    }

    /** The jobs; fails when the answer has no {@code jobs} list or a job cannot be read. */
    List<SlurmJob> jobs() {
      if (jobs == null) {
        // Rare and broken: quote the answer as the tree prints it.
        String root = V0038Json.parse(response.body(), context).toString();
        throw new SlurmUnavailableException(
            context + ": slurmrestd answered without a \"jobs\" list: " + V0038Json.snippet(root));
      }
      if (unreadable instanceof IllegalArgumentException) {
        // A node list Tandem cannot expand: which nodes the job holds is unknown.
        throw new SlurmUnavailableException(
            context + ": slurmrestd answered an unreadable job: " + unreadable.getMessage(),
            unreadable);
      }
      if (unreadable != null) {
        throw unreadable;
      }
      return jobs;
    }
  }

  /**
   * Reads a 2xx job answer. Fails at once, as the tree parse did, when the body is not JSON or not
   * a JSON object; anything after the top-level object is ignored.
   */
  static Answer read(Response r, String context) {
    try (JsonParser p = r.jsonParser(FACTORY)) {
      JsonToken t = p.nextToken();
      if (t != JsonToken.START_OBJECT) {
        if (t != null) {
          p.skipChildren(); // an unfinished array is malformed JSON, not "no object"
        }
        throw new SlurmUnavailableException(context + ": slurmrestd answered no JSON object");
      }
      boolean slurmErrors = false;
      List<SlurmJob> jobs = null;
      RuntimeException unreadable = null;
      String key;
      while ((key = p.nextFieldName()) != null) {
        JsonToken v = p.nextToken();
        if ("jobs".equals(key)) {
          jobs = null;
          unreadable = null;
          if (v == JsonToken.START_ARRAY) {
            jobs = new ArrayList<>();
            unreadable = readJobs(p, jobs);
          } else {
            p.skipChildren();
          }
        } else if ("errors".equals(key)) {
          slurmErrors = anyErrorNumber(p, v);
        } else {
          p.skipChildren();
        }
      }
      return new Answer(r, context, slurmErrors, jobs, unreadable);
    } catch (IOException e) {
      throw new SlurmUnavailableException(
          context + ": slurmrestd answered malformed JSON: " + V0038Json.snippet(r.body()), e);
    }
  }

  /** Reads the array's jobs into {@code out}; returns the first failure to make one, or null. */
  private static RuntimeException readJobs(JsonParser p, List<SlurmJob> out) throws IOException {
    RuntimeException unreadable = null;
    V0038JobFields f = new V0038JobFields();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY && t != null) {
      f.read(p, t);
      if (unreadable == null) {
        try {
          out.add(f.job());
        } catch (RuntimeException e) {
          unreadable = e; // reported after the errors check, as the tree code did
        }
      }
    }
    return unreadable;
  }

  /**
   * Whether {@code errors} holds an entry whose number (the first of {@code error_number}, {@code
   * errno}, {@code error_code} that is an int, as {@link V0038Errors#errors} reads it) is not 0.
   */
  private static boolean anyErrorNumber(JsonParser p, JsonToken v) throws IOException {
    if (v == JsonToken.START_ARRAY) {
      boolean any = false;
      JsonToken t;
      while ((t = p.nextToken()) != JsonToken.END_ARRAY && t != null) {
        any |= errorNumber(p, t) != 0;
      }
      return any;
    }
    if (v == JsonToken.START_OBJECT) {
      // The tree iterates an object's values, a repeated key holding its last one.
      Map<String, Integer> numbers = new HashMap<>();
      String key;
      while ((key = p.nextFieldName()) != null) {
        numbers.put(key, errorNumber(p, p.nextToken()));
      }
      return numbers.values().stream().anyMatch(n -> n != 0);
    }
    p.skipChildren();
    return false;
  }

  private static int errorNumber(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_OBJECT) {
      p.skipChildren();
      return 0;
    }
    Integer errorNumber = null;
    Integer errno = null;
    Integer errorCode = null;
    String key;
    while ((key = p.nextFieldName()) != null) {
      JsonToken v = p.nextToken();
      switch (key) {
        case "error_number" -> errorNumber = V0038JobFields.intValue(p, v);
        case "errno" -> errno = V0038JobFields.intValue(p, v);
        case "error_code" -> errorCode = V0038JobFields.intValue(p, v);
        default -> p.skipChildren();
      }
    }
    return errorNumber != null
        ? errorNumber
        : errno != null ? errno : errorCode != null ? errorCode : 0;
  }
}
