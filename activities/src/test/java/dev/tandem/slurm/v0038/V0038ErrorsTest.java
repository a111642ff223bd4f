package dev.tandem.slurm.v0038;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.SlurmUnsupportedException;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import org.junit.jupiter.api.Test;

/** The error table of docs/slurm-client.md, on real 22.05.8 answers. */
class V0038ErrorsTest {
  private static SlurmException map(int status, String body) {
    return V0038Errors.toException(
        new Response(status, body), "ctx", msg -> new SlurmUnauthorizedException("U:" + msg));
  }

  private static String res(String name) {
    return FakeSlurmTransport.resource("/slurm/v0.0.38/" + name + ".json");
  }

  @Test
  void unknownJobAndNodeAreNotFound() {
    SlurmException job = map(500, res("error-unknown-job"));
    assertInstanceOf(SlurmNotFoundException.class, job);
    assertTrue(job.getMessage().contains("2017"), job.getMessage());
    assertInstanceOf(SlurmNotFoundException.class, map(500, res("error-unknown-node")));
  }

  @Test
  void unspecifiedErrorIsHandedToTheDiagnosis() {
    SlurmException e = map(500, res("error-unspecified"));
    assertInstanceOf(SlurmUnauthorizedException.class, e);
    assertTrue(e.getMessage().startsWith("U:ctx: [-1] Unspecified error"), e.getMessage());
  }

  @Test
  void slurmRefusalsAreRejectedWithTheirNumber() {
    SlurmRejectedException p =
        assertInstanceOf(SlurmRejectedException.class, map(500, res("error-bad-partition")));
    assertEquals(2000, p.errorNumber());
    assertTrue(p.slurmMessage().contains("Invalid partition name"), p.slurmMessage());
    SlurmRejectedException k =
        assertInstanceOf(SlurmRejectedException.class, map(400, res("error-unknown-key")));
    assertEquals(9001, k.errorNumber());
    assertTrue(k.slurmMessage().contains("bogus"), k.slurmMessage());
  }

  @Test
  void httpLevelFailures() {
    assertInstanceOf(SlurmUnauthorizedException.class, map(401, "Authentication failure"));
    assertInstanceOf(SlurmUnsupportedException.class, map(404, "Unable find requested URL."));
    assertInstanceOf(SlurmUnsupportedException.class, map(405, ""));
    assertInstanceOf(SlurmUnavailableException.class, map(502, "bad gateway"));
    assertInstanceOf(SlurmUnavailableException.class, map(500, "{\"errors\":[]}"));
    assertInstanceOf(SlurmUnavailableException.class, map(500, "not json"));
  }

  @Test
  void communicationAndAuthNumbers() {
    assertInstanceOf(
        SlurmUnavailableException.class,
        map(
            500,
            "{\"errors\":[{\"error\":\"Unable to contact slurm controller\",\"errno\":1001}]}"));
    assertInstanceOf(
        SlurmUnavailableException.class,
        map(500, "{\"errors\":[{\"error\":\"Socket timed out\",\"error_number\":1800}]}"));
    assertInstanceOf(
        SlurmUnauthorizedException.class,
        map(500, "{\"errors\":[{\"error\":\"Protocol authentication error\",\"errno\":1007}]}"));
    assertInstanceOf(
        SlurmRejectedException.class,
        map(500, "{\"errors\":[{\"error\":\"Access/permission denied\",\"errno\":2002}]}"));
  }
}
