package dev.tandem.slurm.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The canned slurmrestd answers of one API version, by file name. */
public final class Fixtures {
  private Fixtures() {}

  /** Every {@code *.json} under {@code /slurm/<version>/}, e.g. {@code v0.0.38}, sorted. */
  public static List<String> names(String version) {
    try (Stream<Path> files =
        Files.list(Path.of(Fixtures.class.getResource("/slurm/" + version).toURI()))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".json"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String text(String version, String name) {
    return FakeSlurmTransport.resource("/slurm/" + version + "/" + name);
  }
}
