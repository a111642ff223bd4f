package dev.tandem.slurm.modern;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.slurm.SlurmClient.Ping;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmTransport;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link dev.tandem.slurm.SlurmClient#ping()} for data parsers v0.0.41 to v0.0.44.
 *
 * <p>The contract: {@code controllerUp=false} means slurmctld does not answer; a token slurmctld
 * refuses is a {@link SlurmUnauthorizedException}, never "down", so that an operator sees a
 * credentials problem and not an outage. {@code GET /ping/} alone cannot tell them apart:
 * slurmrestd answers it with 200 whatever the token, and each {@code pings[]} entry only says
 * whether Slurm's {@code slurm_ping()} got a pong ({@code ping_all_controllers()} in
 * src/api/reconfigure.c keeps no error), so a refused token and a stopped slurmctld both read
 * {@code responding:false}. Steps:
 *
 * <ol>
 *   <li>{@code GET /ping/}. An error answer maps as everywhere ({@link SlurmErrors}); one that
 *       means "slurmctld unreachable" is the answer {@code controllerUp=false}.
 *   <li>Any controller responding: up.
 *   <li>None responding: one authenticated read whose failure slurmrestd does report, {@code GET
 *       /licenses/} (small, read-only, no privilege needed: slurmctld's license dump checks no
 *       user). Its error number says which: 1007/6000–6099/9008 or HTTP 401/403/511 → {@link
 *       SlurmUnauthorizedException}; unreachable or any other failure → down; a successful answer
 *       means slurmctld answered after all (a ping lost in a restart) → up.
 * </ol>
 */
final class ModernPing {
  private static final Logger log = LoggerFactory.getLogger(ModernPing.class);

  private ModernPing() {}

  static Ping ping(SlurmTransport transport, String base) {
    String ctx = "ping slurmctld";
    Response r = transport.send(Request.get(base + "/ping/"));
    JsonNode body = Responses.parseQuietly(r.body());
    if (!r.ok()) {
      SlurmException e = SlurmErrors.toException(ctx, r.status(), body, r.body());
      if (e instanceof SlurmUnavailableException) {
        // slurmrestd answered but could not reach slurmctld: that is the answer to a ping.
        return new Ping(false, ModernParsers.slurmVersion(body), ModernParsers.clusterName(body));
      }
      throw e;
    }
    body = Responses.requireJson(ctx, r);
    String version = ModernParsers.slurmVersion(body);
    String cluster = ModernParsers.clusterName(body);
    boolean up = false;
    for (JsonNode p : body.path("pings")) {
      // v0.0.44 says "responding"; v0.0.41 only "pinged": "UP" (deprecated in v0.0.44).
      JsonNode responding = p.get("responding");
      up |=
          responding != null && responding.isBoolean()
              ? responding.asBoolean()
              : "UP".equalsIgnoreCase(p.path("pinged").asText(""));
    }
    if (up) {
      return new Ping(true, version, cluster);
    }
    return new Ping(probeAnswers(transport, base), version, cluster);
  }

  /**
   * Whether slurmctld answers an authenticated read; throws {@link SlurmUnauthorizedException} when
   * it refuses the token.
   */
  private static boolean probeAnswers(SlurmTransport transport, String base) {
    String ctx = "ping slurmctld: no controller answered; asking for licenses to tell why";
    Response r;
    try {
      r = transport.send(Request.get(base + "/licenses/"));
    } catch (SlurmUnavailableException e) {
      log.debug("{}: {}", ctx, e.getMessage());
      return false;
    }
    JsonNode body = Responses.parseQuietly(r.body());
    SlurmErrors.SlurmError primary = SlurmErrors.primary(SlurmErrors.errors(body));
    boolean failed = !r.ok() || (primary != null && SlurmErrors.kind(primary.number()) != null);
    if (!failed) {
      return true;
    }
    SlurmException e = SlurmErrors.toException(ctx, r.status(), body, r.body());
    if (e instanceof SlurmUnauthorizedException) {
      throw e;
    }
    log.debug("{}: {}", ctx, e.getMessage());
    return false;
  }
}
