package dev.tandem.activities;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Parses {@code TANDEM_REMEDIATION_REBOOT} (docs/configuration.md): {@code annotation} (the
 * default, also for unset or blank), {@code webhook:<http(s) url>} or {@code command:<absolute path
 * of an executable>}.
 */
public final class RebootActions {
  private RebootActions() {}

  public static final String ENV = "TANDEM_REMEDIATION_REBOOT";

  /**
   * The configured action; {@link IllegalArgumentException} with a message naming the variable for
   * anything else, so a worker with a typo refuses to start instead of never rebooting.
   */
  public static RebootAction parse(String value, KubernetesClient client, Clock clock) {
    NodeWrites nodes = new NodeWrites(client);
    String v = value == null ? "" : value.strip();
    if (v.isEmpty() || v.equals("annotation")) {
      return new AnnotationReboot(nodes);
    }
    if (v.startsWith("webhook:")) {
      return new WebhookReboot(url(v.substring("webhook:".length())), nodes, clock);
    }
    if (v.startsWith("command:")) {
      return new CommandReboot(command(v.substring("command:".length())), nodes);
    }
    throw new IllegalArgumentException(
        ENV
            + "="
            + value
            + ": must be annotation, webhook:<http(s) URL> or command:<absolute path of an"
            + " executable>");
  }

  private static URI url(String s) {
    try {
      URI u = URI.create(s.strip());
      if (("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null) {
        return u;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    throw new IllegalArgumentException(ENV + ": webhook needs an http(s) URL, got \"" + s + "\"");
  }

  private static Path command(String s) {
    Path p = Path.of(s.strip());
    if (!p.isAbsolute() || !Files.isRegularFile(p) || !Files.isExecutable(p)) {
      throw new IllegalArgumentException(
          ENV + ": command needs the absolute path of an executable file, got \"" + s + "\"");
    }
    return p;
  }
}
