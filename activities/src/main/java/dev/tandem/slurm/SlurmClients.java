package dev.tandem.slurm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.slurm.SlurmClient.ApiVersion;
import dev.tandem.slurm.v0038.SlurmClientV0038;
import dev.tandem.slurm.v0041.SlurmClientV0041;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the {@link SlurmClient} for a slurmrestd: the configured API version, or the newest one
 * both the server and Tandem support. The server is asked for its OpenAPI document ({@code
 * /openapi/v3}, whose paths name every loaded version); if that fails, each supported version's
 * {@code /slurm/<v>/ping} is probed, newest first.
 */
public final class SlurmClients {
  private static final Logger LOG = LoggerFactory.getLogger(SlurmClients.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern VERSION_PATH = Pattern.compile("^/slurm/(v\\d+\\.\\d+\\.\\d+)/");

  /** Builds an adapter on a transport. */
  @FunctionalInterface
  public interface Factory {
    SlurmClient create(SlurmTransport transport, SlurmClientConfig config);
  }

  /** One adapter per REST API version; adding a version is one line here. */
  private static final Map<ApiVersion, Factory> FACTORIES = new EnumMap<>(ApiVersion.class);

  static {
    FACTORIES.put(ApiVersion.V0_0_38, SlurmClientV0038::new);
    FACTORIES.put(ApiVersion.V0_0_41, (t, c) -> new SlurmClientV0041(t));
    FACTORIES.put(ApiVersion.V0_0_44, (t, c) -> new SlurmClientV0044(t));
  }

  private SlurmClients() {}

  /** The API versions this build has adapters for. */
  public static Set<ApiVersion> supported() {
    return Collections.unmodifiableSet(FACTORIES.keySet());
  }

  /** A client over HTTP, with the version configured or detected. */
  public static SlurmClient create(SlurmClientConfig config) {
    return create(new HttpSlurmTransport(config), config);
  }

  /** A client over {@code transport} (tests pass a canned one). */
  public static SlurmClient create(SlurmTransport transport, SlurmClientConfig config) {
    ApiVersion version = config.apiVersion() != null ? config.apiVersion() : detect(transport);
    Factory f = FACTORIES.get(version);
    if (f == null) {
      throw new SlurmUnsupportedException(
          "no adapter for slurmrestd API " + version.path() + "; supported: " + names());
    }
    return f.create(transport, config);
  }

  /** The newest supported version the server offers. */
  public static ApiVersion detect(SlurmTransport transport) {
    List<String> offered = offeredVersions(transport);
    if (!offered.isEmpty()) {
      for (ApiVersion v : newestFirst()) {
        if (offered.contains(v.path())) {
          LOG.info("slurmrestd offers {}; using {}", offered, v.path());
          return v;
        }
      }
      throw new SlurmUnsupportedException(
          "slurmrestd offers " + offered + " but this build supports only " + names());
    }
    // No usable OpenAPI document: probe each supported version's ping.
    for (ApiVersion v : newestFirst()) {
      SlurmTransport.Response r =
          transport.send(SlurmTransport.Request.get("/slurm/" + v.path() + "/ping"));
      if (r.status() == 401) {
        throw new SlurmUnauthorizedException(
            "slurmrestd refused the credentials (HTTP 401) while detecting the API version");
      }
      if (r.status() != 404) {
        // 200, or 500 with Slurm errors: either way the version's paths exist.
        LOG.info("slurmrestd answers /slurm/{}/ping with {}; using it", v.path(), r.status());
        return v;
      }
    }
    throw new SlurmUnsupportedException(
        "slurmrestd answers none of the supported API versions " + names());
  }

  /** Versions named by the paths of {@code /openapi/v3}, or empty if it cannot be had. */
  static List<String> offeredVersions(SlurmTransport transport) {
    SlurmTransport.Response r = transport.send(SlurmTransport.Request.get("/openapi/v3"));
    if (!r.ok()) {
      LOG.debug("/openapi/v3 answered {}; probing versions instead", r.status());
      return List.of();
    }
    Set<String> versions = new TreeSet<>();
    try {
      JsonNode paths = JSON.readTree(r.body()).path("paths");
      for (Iterator<String> it = paths.fieldNames(); it.hasNext(); ) {
        Matcher m = VERSION_PATH.matcher(it.next());
        if (m.find()) {
          versions.add(m.group(1));
        }
      }
    } catch (java.io.IOException e) {
      LOG.debug("/openapi/v3 is not JSON; probing versions instead");
      return List.of();
    }
    return new ArrayList<>(versions);
  }

  private static List<ApiVersion> newestFirst() {
    List<ApiVersion> vs = new ArrayList<>(FACTORIES.keySet());
    Collections.reverse(vs); // enum order is oldest first
    return vs;
  }

  private static List<String> names() {
    return FACTORIES.keySet().stream().map(ApiVersion::path).toList();
  }
}
