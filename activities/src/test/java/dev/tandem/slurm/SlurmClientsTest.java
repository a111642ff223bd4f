package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient.ApiVersion;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import java.net.URI;
import org.junit.jupiter.api.Test;

class SlurmClientsTest {
  private static final SlurmClientConfig CONFIG =
      new SlurmClientConfig(
          URI.create("http://127.0.0.1:6820"),
          null,
          "root",
          TokenSource.fixed("t"),
          null,
          null,
          null,
          null,
          null);

  @Test
  void detectsV0038FromTheRealOpenApiDocument() {
    FakeSlurmTransport t =
        new FakeSlurmTransport()
            .on(
                "GET",
                "/openapi/v3",
                200,
                FakeSlurmTransport.resource("/slurm/v0.0.38/openapi-v3.json"));
    assertEquals(ApiVersion.V0_0_38, SlurmClients.detect(t));
    t.on("GET", "/openapi/v3", 200, FakeSlurmTransport.resource("/slurm/v0.0.38/openapi-v3.json"));
    try (SlurmClient c = SlurmClients.create(t, CONFIG)) {
      assertEquals(ApiVersion.V0_0_38, c.apiVersion());
    }
  }

  @Test
  void picksTheNewestSupportedVersionOffered() {
    FakeSlurmTransport t =
        new FakeSlurmTransport()
            .on(
                "GET",
                "/openapi/v3",
                200,
                "{\"paths\":{\"/slurm/v0.0.37/ping\":{},\"/slurm/v0.0.38/ping\":{},"
                    + "\"/slurmdb/v0.0.38/jobs\":{},\"/slurm/v0.0.99/ping\":{}}}");
    assertEquals(ApiVersion.V0_0_38, SlurmClients.detect(t));
  }

  @Test
  void refusesAServerWithOnlyUnsupportedVersions() {
    FakeSlurmTransport t =
        new FakeSlurmTransport()
            .on("GET", "/openapi/v3", 200, "{\"paths\":{\"/slurm/v0.0.39/ping/\":{}}}");
    SlurmUnsupportedException e =
        assertThrows(SlurmUnsupportedException.class, () -> SlurmClients.detect(t));
    assertTrue(e.getMessage().contains("v0.0.39"), e.getMessage());
  }

  @Test
  void probesPingWhenTheDocumentIsMissing() {
    FakeSlurmTransport t =
        new FakeSlurmTransport()
            .on("GET", "/openapi/v3", 404, "")
            .on("GET", "/slurm/v0.0.44/ping", 404, "Unable find requested URL.")
            .on("GET", "/slurm/v0.0.41/ping", 404, "Unable find requested URL.")
            .on(
                "GET",
                "/slurm/v0.0.38/ping",
                200,
                FakeSlurmTransport.resource("/slurm/v0.0.38/ping.json"));
    assertEquals(ApiVersion.V0_0_38, SlurmClients.detect(t));
    FakeSlurmTransport none =
        new FakeSlurmTransport()
            .on("GET", "/openapi/v3", 404, "")
            .on("GET", "/slurm/v0.0.44/ping", 404, "Unable find requested URL.")
            .on("GET", "/slurm/v0.0.41/ping", 404, "Unable find requested URL.")
            .on("GET", "/slurm/v0.0.38/ping", 404, "Unable find requested URL.");
    assertThrows(SlurmUnsupportedException.class, () -> SlurmClients.detect(none));
    FakeSlurmTransport unauthorized =
        new FakeSlurmTransport()
            .on("GET", "/openapi/v3", 500, "")
            .on("GET", "/slurm/v0.0.44/ping", 401, "Authentication failure")
            .on("GET", "/slurm/v0.0.41/ping", 401, "Authentication failure")
            .on("GET", "/slurm/v0.0.38/ping", 401, "Authentication failure");
    assertThrows(SlurmUnauthorizedException.class, () -> SlurmClients.detect(unauthorized));
  }

  @Test
  void configuredVersionSkipsDetection() {
    FakeSlurmTransport t = new FakeSlurmTransport();
    try (SlurmClient c = SlurmClients.create(t, CONFIG.withApiVersion(ApiVersion.V0_0_38))) {
      assertEquals(ApiVersion.V0_0_38, c.apiVersion());
    }
    assertTrue(t.requests().isEmpty());
    assertEquals(
        java.util.Set.of(ApiVersion.V0_0_38, ApiVersion.V0_0_41, ApiVersion.V0_0_44),
        SlurmClients.supported());
  }
}
