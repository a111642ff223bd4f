package dev.tandem.slurm.modern;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmTransport;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.SlurmUnavailableException;
import java.util.List;
import java.util.Map;

/**
 * {@code DELETE /job/{id}[?signal=&flags=FULL_JOB]} for data parsers v0.0.41 to v0.0.44, and what
 * its answers mean.
 *
 * <p>A signal is sent with {@code flags=FULL_JOB}: to the batch shell as well as every step, as
 * {@code scancel --full} does. A placeholder has no steps, only its batch shell, which is what
 * {@link dev.tandem.slurm.JobSubmission#RELEASE_SIGNAL} must reach. slurmrestd's delete handler
 * (src/slurmrestd/plugins/openapi/slurmctld/jobs.c) already takes {@code KILL_FULL_JOB} when the
 * request names no flags, on every release that has the parameter; naming it keeps the release from
 * depending on that default (plain {@code scancel --signal} signals the steps only).
 *
 * <p>How an answer is read:
 *
 * <ol>
 *   <li>A Slurm error 2021 (already done) or 2017 (unknown or purged job) anywhere is success: a
 *       retried cancel has nothing left to do.
 *   <li>Slurm error 1 (a bare errno EPERM, "Operation not permitted") anywhere is <em>unavailable
 *       </em>, never a refusal. Evidence: Slurm 25.11's {@code slurm_kill_jobs()}
 *       (src/api/cancel.c, also on Slurm's master branch) reads {@code if ((rc =
 *       slurm_send_recv_controller_msg(...) < 0))}, so {@code rc} becomes the comparison, 1,
 *       whenever the request got no answer from slurmctld (unreachable, timed out, shutting down);
 *       slurmrestd then answers HTTP 500 with error 1 and "Signal request failed". A 25.11.7
 *       slurmrestd did exactly that with slurmctld stopped. slurmctld's own refusals are Slurm
 *       numbers, not errnos: another user's job is 2002 (ESLURM_ACCESS_DENIED) inside a 200 {@code
 *       status} list, a forbidden admin comment 2010 (ESLURM_USER_ID_MISSING); both stay {@code
 *       SlurmRejectedException}. Erring this way is safe: a cancel retried later does no harm, a
 *       cancel dropped leaks a job that holds nodes.
 *   <li>Anything else maps as everywhere ({@link SlurmErrors}).
 * </ol>
 *
 * <p>Answer shapes: v0.0.44 answers 200 with {@code {"status":[...]}} (an empty list is success,
 * per-job failures sit in {@code status[i].error.code}); v0.0.41 a plain {@code openapi_resp} with
 * {@code errors[]}.
 */
final class ModernCancel {
  /** The signalling flag that reaches the batch shell too (see the class Javadoc). */
  static final String FULL_JOB = "FULL_JOB";

  private ModernCancel() {}

  static void cancel(SlurmTransport transport, String base, long id, String signal) {
    ModernRequests.checkSignal(signal);
    String ctx = (signal == null ? "cancel job " : "signal " + signal + " to job ") + id;
    Map<String, List<String>> query =
        signal == null ? Map.of() : Map.of("signal", List.of(signal), "flags", List.of(FULL_JOB));
    Response r = transport.send(Request.delete(base + "/job/" + id, query));
    JsonNode body = Responses.parseQuietly(r.body());
    if (!r.ok()) {
      SlurmErrors.SlurmError e = SlurmErrors.primary(SlurmErrors.errors(body));
      if (e != null && endedAlready(e.number())) {
        return;
      }
      if (e != null && e.number() == SlurmErrors.EPERM) {
        throw noAnswer(ctx + " (HTTP " + r.status() + ")", e.text());
      }
      throw SlurmErrors.toException(ctx, r.status(), body, r.body());
    }
    if (r.body() == null || r.body().isBlank()) {
      return; // an empty 200/204 carries no error
    }
    body = Responses.requireJson(ctx, r);
    for (JsonNode s : body.path("status")) {
      int code = Json.intValue(s.path("error").get("code"), 0);
      if (code != 0 && !endedAlready(code)) {
        String msg = Json.text(s.path("error").get("message"));
        String str = Json.text(s.path("error").get("string"));
        throw failure(ctx, code, msg != null ? msg : str != null ? str : "?");
      }
    }
    for (SlurmErrors.SlurmError e : SlurmErrors.errors(body)) {
      if (e.number() != 0 && !endedAlready(e.number())) {
        throw failure(ctx, e.number(), e.text());
      }
    }
  }

  private static SlurmException failure(String ctx, int number, String text) {
    return number == SlurmErrors.EPERM
        ? noAnswer(ctx, text)
        : SlurmErrors.fromNumber(ctx, number, text);
  }

  private static SlurmUnavailableException noAnswer(String where, String text) {
    return new SlurmUnavailableException(
        where
            + ": Slurm error 1: "
            + text
            + "; taken for slurmctld not answering (Slurm 25.11 reports any failure to reach"
            + " slurmctld on cancel as error 1), retry");
  }

  /** Cancelling a job that ended (2021) or was already purged (2017) reaches the goal. */
  private static boolean endedAlready(int slurmError) {
    return slurmError == SlurmErrors.ALREADY_DONE || slurmError == SlurmErrors.INVALID_JOB_ID;
  }
}
