package dev.tandem.workers;

import dev.tandem.workflows.Names;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Properties;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The worker's default build id ({@code TANDEM_BUILD_ID} unset): {@code <project version>-<12 hex
 * digits>}, the digits a SHA-256 of the workflow classes ({@code dev/tandem/workflows/**.class}, by
 * name and content) this process runs. So the id is the same for every replica and restart of one
 * image (a configuration change or a crash starts no new version, which would leave the pinned
 * executions of the old one without a worker), and differs as soon as the workflow code does, even
 * between two builds of one version (docs/upgrading.md, "Worker Versioning").
 */
final class BuildId {
  private static final String PREFIX = "dev/tandem/workflows/";

  private BuildId() {}

  static String defaultId() {
    return version() + "-" + workflowCodeHash();
  }

  /** The Maven project version (a filtered resource), or {@code dev} where it was not filtered. */
  static String version() {
    try (InputStream in = BuildId.class.getResourceAsStream("build.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        String v = p.getProperty("version", "");
        if (!v.isBlank() && !v.startsWith("${")) {
          return v.trim();
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return "dev";
  }

  /** 12 hex digits of the SHA-256 of the workflow classes, read from their jar or directory. */
  static String workflowCodeHash() {
    try {
      Path source =
          Path.of(Names.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      TreeMap<String, byte[]> classes = new TreeMap<>();
      if (Files.isDirectory(source)) {
        Path root = source.resolve(PREFIX);
        try (Stream<Path> files = Files.walk(root)) {
          for (Path f : (Iterable<Path>) files::iterator) {
            if (f.toString().endsWith(".class")) {
              classes.put(
                  source.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
            }
          }
        }
      } else {
        try (JarFile jar = new JarFile(source.toFile())) {
          for (JarEntry e : (Iterable<JarEntry>) jar.stream()::iterator) {
            if (e.getName().startsWith(PREFIX) && e.getName().endsWith(".class")) {
              try (InputStream in = jar.getInputStream(e)) {
                classes.put(e.getName(), in.readAllBytes());
              }
            }
          }
        }
      }
      if (classes.isEmpty()) {
        throw new IllegalStateException("no workflow classes under " + source);
      }
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      classes.forEach(
          (name, bytes) -> {
            sha.update(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(bytes);
          });
      return HexFormat.of().formatHex(sha.digest()).substring(0, 12);
    } catch (IOException | URISyntaxException | NoSuchAlgorithmException | RuntimeException e) {
      throw new ConfigException(
          "cannot derive the worker's build id from its workflow classes ("
              + e
              + "); set TANDEM_BUILD_ID");
    }
  }
}
