package dev.tandem.slurm.fake;

import dev.tandem.slurm.HttpSlurmTransport;
import dev.tandem.slurm.Jwt;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.ApiVersion;
import dev.tandem.slurm.contract.SlurmContractTarget;
import dev.tandem.slurm.fake.FakeSlurmrestd.NodeSpec;
import dev.tandem.slurm.spec.OpenApiSpec;
import dev.tandem.slurm.spec.SpecCheckedTransport;
import dev.tandem.slurm.spec.SpecOperations;
import dev.tandem.slurm.testing.Await;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The contract suite's simulated target: one {@link FakeSlurmrestd} per JVM, configured like
 * scripts/slurm-local.sh (static n1–n4, 4 CPUs, 4000 MB, n3/n4 {@code gpu:2}; partitions {@code
 * low} tier 1 REQUEUE and {@code high} tier 10 OFF; pool {@code spare-0..3} as dynamic nodes),
 * reached through the v0.0.44 adapter over a {@link SpecCheckedTransport}: every request and every
 * answer must match the v0.0.44 spec.
 */
public final class FakeSlurmTarget implements SlurmContractTarget {
  private static FakeSlurmTarget instance;

  private final FakeSlurmrestd fake;
  private final Map<String, String> env;

  private FakeSlurmTarget(FakeSlurmrestd fake, Map<String, String> env) {
    this.fake = fake;
    this.env = env;
  }

  /** The shared fake, started on first use; stopped at JVM exit. */
  public static synchronized FakeSlurmTarget get() {
    if (instance == null) {
      instance = start();
      Runtime.getRuntime().addShutdownHook(new Thread(instance.fake::close, "fake-slurm-stop"));
    }
    return instance;
  }

  private static FakeSlurmTarget start() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    List<NodeSpec> nodes = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      nodes.add(new NodeSpec("n" + i, 4, 4000, List.of(), i >= 3 ? "gpu:2" : ""));
    }
    FakeSlurmrestd fake =
        FakeSlurmrestd.start(
            FakeSlurmrestd.Options.defaults(key),
            List.of(FakePartition.all("low", 1), FakePartition.all("high", 10)),
            nodes);
    try {
      Path dir = Files.createTempDirectory("fake-slurm");
      dir.toFile().deleteOnExit();
      Path keyFile = dir.resolve("jwt_hs256.key");
      Files.write(keyFile, key);
      Instant now = Instant.now();
      Path tokenFile = dir.resolve("token");
      Files.writeString(tokenFile, Jwt.mintHs256(key, "root", now, now.plusSeconds(86_400)));
      keyFile.toFile().deleteOnExit();
      tokenFile.toFile().deleteOnExit();
      return new FakeSlurmTarget(
          fake,
          Map.of(
              "SLURM_REST_URL", fake.url().toString(),
              "SLURM_USER", "root",
              "SLURM_JWT_KEY_FILE", keyFile.toString(),
              "SLURM_TOKEN_FILE", tokenFile.toString()));
    } catch (IOException e) {
      fake.close();
      throw new UncheckedIOException(e);
    }
  }

  public FakeSlurmrestd fake() {
    return fake;
  }

  @Override
  public Map<String, String> env() {
    return env;
  }

  @Override
  public SlurmClient client() {
    SpecOperations ops = new SpecOperations(OpenApiSpec.load("v0.0.44"));
    return new SlurmClientV0044(new SpecCheckedTransport(new HttpSlurmTransport(config()), ops));
  }

  @Override
  public ApiVersion apiVersion() {
    return ApiVersion.V0_0_44;
  }

  @Override
  public String slurmVersionPrefix() {
    return "25.11";
  }

  @Override
  public Optional<Duration> expectedKillWait() {
    return Optional.empty();
  }

  @Override
  public List<String> pool(String prefix) {
    if (!prefix.equals("spare")) {
      throw new IllegalArgumentException("the fake target has only the pool 'spare'");
    }
    return List.of("spare-0", "spare-1", "spare-2", "spare-3");
  }

  @Override
  public void nodeUp(String name) {
    fake.registerNode(name, 4, 4000, List.of(), "gpu:2");
    Await.until(
        "fake node " + name + " registered",
        Duration.ofSeconds(10),
        () -> fake.knows(name),
        k -> k);
  }

  @Override
  public void nodeDown(String name) {
    try (SlurmClient c = client()) {
      c.deleteNode(name);
    }
  }

  @Override
  public void killSlurmd(String name) {
    fake.slurmdLost(name);
  }

  /**
   * The fake's nodes registered through its kubelet hook are dynamic nodes; the {@code --conf}
   * line's {@code Feature=} and {@code Gres=} become the registration's (the hook takes no weight).
   */
  @Override
  public void dynamicNodeUp(String name, String conf) {
    List<String> features = List.of();
    String gres = "";
    for (String part : conf.trim().split("\\s+")) {
      if (part.startsWith("Feature=")) {
        features = List.of(part.substring("Feature=".length()).split(","));
      } else if (part.startsWith("Gres=")) {
        gres = part.substring("Gres=".length());
      }
    }
    fake.registerNode(name, 4, 4000, features, gres);
    Await.until(
        "fake node " + name + " registered",
        Duration.ofSeconds(10),
        () -> fake.knows(name),
        k -> k);
  }

  @Override
  public void dynamicNodeDown(String name) {
    try (SlurmClient c = client()) {
      c.deleteNode(name);
    }
  }
}
