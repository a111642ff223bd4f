package dev.tandem.slurm.v0038;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.slurm.SlurmTransport.Response;
import dev.tandem.slurm.modern.ModernTreeJobs;
import dev.tandem.slurm.testing.Fixtures;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * What reading one job listing costs, tree (the old code, from the String the transport made of the
 * bytes) against token stream (from the bytes as received): median time and bytes allocated per
 * listing, after a warm-up, on the calling thread. A printed figure, not a test. The listing is the
 * real 22.05 capture replicated to {@code jobs} jobs with distinct ids (22.05 answers every job
 * slurmctld holds); v0.0.44 and a node listing are measured alongside.
 *
 * <pre>
 * ./mvnw -B -o -pl activities -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
 * java [-XX:TieredStopAtLevel=1] -cp activities/target/test-classes:activities/target/classes:$(cat
 *     activities/target/test.classpath) dev.tandem.slurm.v0038.JobListingParseBench [jobs] [runs]
 * </pre>
 */
public final class JobListingParseBench {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private JobListingParseBench() {}

  public static void main(String[] args) {
    int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 800;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    System.out.printf(
        Locale.ROOT,
        "JVM %s, %s; %d runs after %d warm-up runs, medians%n",
        System.getProperty("java.vm.version"),
        ManagementFactory.getRuntimeMXBean().getInputArguments(),
        runs,
        runs);
    System.out.printf(
        Locale.ROOT, "%-44s %9s %9s %12s%n", "listing / reader", "KiB", "ms", "KiB alloc");

    byte[] v38 = utf8(Fixtures.replicate(Fixtures.text("v0.0.38", "jobs-placeholders.json"), jobs));
    check(V0038TreeJobs.read(text(v38), "t"), V0038Jobs.read(Response.utf8(200, v38), "t").jobs());
    String l38 = "v0.0.38, " + jobs + " jobs";
    row(l38 + ": tree (String + readTree)", v38, runs, () -> V0038TreeJobs.read(text(v38), "t"));
    row(
        l38 + ": stream from bytes",
        v38,
        runs,
        () -> V0038Jobs.read(Response.utf8(200, v38), "t").jobs());
    String s38 = text(v38);
    row(
        l38 + ": stream from a String",
        v38,
        runs,
        () -> V0038Jobs.read(new Response(200, s38), "t").jobs());

    byte[] v44 = utf8(Fixtures.replicate(Fixtures.text("v0.0.44", "jobs.json"), jobs));
    String l44 = "v0.0.44, " + jobs + " jobs";
    check(
        ModernTreeJobs.listing("t", new Response(200, text(v44)), null),
        ModernTreeJobs.streamed("t", Response.utf8(200, v44), null));
    row(
        l44 + ": tree (String + readTree)",
        v44,
        runs,
        () -> ModernTreeJobs.listing("t", new Response(200, text(v44)), null));
    row(
        l44 + ": stream from bytes",
        v44,
        runs,
        () -> ModernTreeJobs.streamed("t", Response.utf8(200, v44), null));

    for (int n : List.of(8, 1000)) {
      byte[] nodes = utf8(nodes(n));
      row(
          "v0.0.38, " + n + " nodes: tree (String + readTree)",
          nodes,
          runs,
          () -> V0038Json.nodes(V0038Json.parse(text(nodes), "t"), "t"));
    }
  }

  private static void row(String label, byte[] body, int runs, Supplier<Object> read) {
    long sink = 0;
    for (int i = 0; i < runs; i++) {
      sink += read.get().hashCode();
    }
    long[] nanos = new long[runs];
    long[] alloc = new long[runs];
    long id = Thread.currentThread().getId();
    for (int i = 0; i < runs; i++) {
      long a = THREADS.getThreadAllocatedBytes(id);
      long t = System.nanoTime();
      sink += read.get().hashCode();
      nanos[i] = System.nanoTime() - t;
      alloc[i] = THREADS.getThreadAllocatedBytes(id) - a;
    }
    System.out.printf(
        Locale.ROOT,
        "%-44s %9.0f %9.2f %12.0f%s%n",
        label,
        body.length / 1024.0,
        median(nanos) / 1e6,
        median(alloc) / 1024.0,
        sink == 42 ? " " : "");
  }

  /** The 22.05 node capture replicated to {@code count} nodes with distinct names. */
  private static String nodes(int count) {
    ObjectNode root = (ObjectNode) V0038Json.parse(Fixtures.text("v0.0.38", "nodes.json"), "t");
    ArrayNode list = (ArrayNode) root.get("nodes");
    List<ObjectNode> originals =
        java.util.stream.StreamSupport.stream(list.spliterator(), false)
            .map(n -> (ObjectNode) n)
            .toList();
    list.removeAll();
    for (int i = 0; i < count; i++) {
      list.add(originals.get(i % originals.size()).deepCopy().put("name", "x" + i));
    }
    return root.toPrettyString();
  }

  private static void check(Object tree, Object stream) {
    if (!tree.equals(stream)) {
      throw new AssertionError("the readers disagree on the benchmark listing");
    }
  }

  private static long median(long[] v) {
    long[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** What HttpSlurmTransport used to hand over: the body decoded into a String. */
  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
