package dev.tandem.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import org.junit.jupiter.api.Test;

/**
 * Bad-input catalogue (docs/reliability.md): odd slurmrestd answers at the adapter level, for Slurm
 * 22.05 (v0.0.38) and 25.11 (v0.0.44). Each must become the typed {@link SlurmException} with the
 * message below (which reaches the node's {@code problem} through the activity), never a value: an
 * unreadable answer is not an empty node or job list. The activity-level consequences (fail closed)
 * are in {@link BadSlurmAnswerActivityTest}.
 */
class BadSlurmAnswerTest {
  static final String B38 = CatalogueSlurm.B38;
  static final String B44 = CatalogueSlurm.B44;
  static final String HTML_502 =
      "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad"
          + " Gateway</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n";

  final FakeSlurmTransport fake = new FakeSlurmTransport();

  SlurmClient v38() {
    return CatalogueSlurm.v38(fake);
  }

  SlurmClient v44() {
    return CatalogueSlurm.v44(fake);
  }

  static String res(String path) {
    return FakeSlurmTransport.resource(path);
  }

  /** The message of the typed exception {@code call} must throw. */
  static String unavailable(Runnable call) {
    SlurmException e = assertThrows(SlurmException.class, call::run);
    assertInstanceOf(SlurmUnavailableException.class, e, e.toString());
    return e.getMessage();
  }

  // ---- a proxy's HTML ----

  @Test
  void htmlBadGatewayFromAProxy() {
    fake.on("GET", B38 + "/nodes", 502, HTML_502);
    assertEquals(
        "list nodes: slurmrestd answered HTTP 502: <html> <head><title>502 Bad Gateway</title></head>"
            + " <body> <center><h1>502 Bad Gateway</h1></center> <hr><center>nginx/1.22.1</center>"
            + " </body> </html>",
        unavailable(() -> v38().listNodes(null)));
    fake.on("GET", B44 + "/nodes/", 502, HTML_502);
    assertEquals(
        "list nodes (HTTP 502): <html> <head><title>502 Bad Gateway</title></head> <body>"
            + " <center><h1>502 Bad Gateway</h1></center> <hr><center>nginx/1.22.1</center>"
            + " </body> </html>",
        unavailable(() -> v44().listNodes(null)));
  }

  /** A login page or a proxy's error page with status 200 (wrong content type). */
  @Test
  void htmlWithStatus200() {
    fake.on("GET", B38 + "/jobs", 200, "<html><body>Please log in</body></html>");
    assertEquals(
        "list jobs: slurmrestd answered malformed JSON: <html><body>Please log in</body></html>",
        unavailable(() -> v38().listJobs(null)));
    fake.on("GET", B44 + "/jobs/", 200, "<html><body>Please log in</body></html>");
    assertEquals(
        "list jobs: slurmrestd answered HTTP 200 with a body that is not a JSON object:"
            + " <html><body>Please log in</body></html>",
        unavailable(() -> v44().listJobs(null)));
  }

  // ---- broken JSON ----

  @Test
  void truncatedJson() {
    String cut = res(B38 + "/nodes.json").substring(0, 700);
    fake.on("GET", B38 + "/nodes", 200, cut);
    String m = unavailable(() -> v38().listNodes(null));
    assertTrue(m.startsWith("list nodes: slurmrestd answered malformed JSON: { \"meta\""), m);
    fake.on("GET", B44 + "/nodes/", 200, res(B44 + "/nodes.json").substring(0, 700));
    m = unavailable(() -> v44().listNodes(null));
    assertTrue(
        m.startsWith(
            "list nodes: slurmrestd answered HTTP 200 with a body that is not a JSON object: {"),
        m);
  }

  @Test
  void emptyBodyWith200() {
    fake.on("GET", B38 + "/nodes", 200, "");
    assertEquals(
        "list nodes: slurmrestd answered no JSON object", unavailable(() -> v38().listNodes(null)));
    fake.on("GET", B44 + "/jobs/", 200, "");
    assertEquals(
        "list jobs: slurmrestd answered HTTP 200 with a body that is not a JSON object: ",
        unavailable(() -> v44().listJobs(null)));
  }

  /** A 200 that still names a Slurm error: its (empty) list cannot be trusted. */
  @Test
  void status200WithErrors() {
    String body =
        "{\"meta\":{},\"errors\":[{\"error\":\"Unable to contact slurm controller (connect"
            + " failure)\",\"errno\":1800}],\"nodes\":[]}";
    fake.on("GET", B38 + "/nodes", 200, body);
    assertEquals(
        "list nodes: [1800] Unable to contact slurm controller (connect failure)",
        unavailable(() -> v38().listNodes(null)));
    fake.on(
        "GET",
        B44 + "/jobs/",
        200,
        "{\"jobs\":[],\"last_update\":{\"set\":true,\"infinite\":false,\"number\":1},"
            + "\"errors\":[{\"error_number\":1800,\"error\":\"Unable to contact slurm controller"
            + " (connect failure)\",\"description\":\"\"}]}");
    assertEquals(
        "list jobs (HTTP 200): Slurm error 1800: Unable to contact slurm controller (connect"
            + " failure)",
        unavailable(() -> v44().listJobs(null)));
  }

  // ---- missing pieces ----

  @Test
  void listingWithoutItsList() {
    fake.on("GET", B38 + "/jobs", 200, "{\"meta\":{},\"errors\":[]}");
    assertEquals(
        "list jobs: slurmrestd answered without a \"jobs\" list: {\"meta\":{},\"errors\":[]}",
        unavailable(() -> v38().listJobs(null)));
    fake.on("GET", B44 + "/nodes/", 200, "{\"meta\":{},\"errors\":[]}");
    assertEquals(
        "list nodes: slurmrestd answered without a \"nodes\" list",
        unavailable(() -> v44().listNodes(null)));
  }

  @Test
  void nodeWithoutAName() {
    fake.on("GET", B38 + "/nodes", 200, "{\"nodes\":[{\"state\":\"idle\"}]}");
    assertEquals(
        "list nodes: slurmrestd answered a node without a name: {\"state\":\"idle\"}",
        unavailable(() -> v38().listNodes(null)));
    fake.on("GET", B44 + "/nodes/", 200, "{\"nodes\":[{\"state\":[\"IDLE\"]}]}");
    assertEquals(
        "list nodes: unreadable entry: node without a name: {\"state\":[\"IDLE\"]}",
        unavailable(() -> v44().listNodes(null)));
  }

  /** Slurm answers an unknown node with an error (22.05) or without any node (25.11). */
  @Test
  void nodeListWithoutTheNodeAskedFor() {
    fake.on("GET", B38 + "/node/gpu-a-0", 200, "{\"nodes\":[{\"name\":\"gpu-a-1\"}]}");
    assertEquals(
        "get node gpu-a-0: slurmrestd answered a node list without gpu-a-0:"
            + " {\"nodes\":[{\"name\":\"gpu-a-1\"}]}",
        unavailable(() -> v38().getNode("gpu-a-0")));
    fake.on(
        "GET",
        B44 + "/node/gpu-a-0",
        200,
        "{\"nodes\":[{\"name\":\"gpu-a-1\",\"state\":[\"IDLE\"]}]}");
    assertEquals(
        "get node gpu-a-0: slurmrestd answered other nodes (gpu-a-1, ...) but not it",
        unavailable(() -> v44().getNode("gpu-a-0")));
  }

  /** A cache or proxy answering 304 to a request that asked for everything. */
  @Test
  void notModifiedWhereABodyIsNeeded() {
    fake.on("GET", B38 + "/node/gpu-a-0", 304, "");
    assertEquals(
        "get node gpu-a-0: slurmrestd answered HTTP 304: (no body)",
        unavailable(() -> v38().getNode("gpu-a-0")));
    fake.on("GET", B44 + "/nodes/", 304, "");
    assertEquals(
        "list nodes (HTTP 304): slurmrestd answered without the data asked for",
        unavailable(() -> v44().listNodes(null)));
  }

  @Test
  void jobWithAnUnreadableNodeList() {
    fake.on(
        "GET",
        B38 + "/jobs",
        200,
        "{\"jobs\":[{\"job_id\":42,\"job_state\":\"RUNNING\",\"nodes\":\"gpu-a-[0-\"}]}");
    assertEquals(
        "list jobs: slurmrestd answered an unreadable job: unbalanced '[' in hostlist: gpu-a-[0-",
        unavailable(() -> v38().listJobs(null)));
    fake.on(
        "GET",
        B44 + "/jobs/",
        200,
        "{\"jobs\":[{\"job_id\":42,\"job_state\":[\"RUNNING\"],\"nodes\":\"gpu-a-[3-1]\"}],"
            + "\"last_update\":5}");
    assertEquals(
        "list jobs: unreadable entry: bad range '3-1' in hostlist: gpu-a-[3-1]",
        unavailable(() -> v44().listJobs(null)));
  }

  // ---- values read as they are, never as something safer ----

  /** A state this client does not know stays what it is: not idle, not drained, not down. */
  @Test
  void unknownNodeStatesAndFlags() {
    fake.on(
        "GET",
        B38 + "/node/gpu-a-0",
        200,
        "{\"nodes\":[{\"name\":\"gpu-a-0\",\"state\":\"hibernating\",\"state_flags\":[\"WARP\"]}]}");
    SlurmNode n = v38().getNode("gpu-a-0");
    assertEquals("hibernating", n.state());
    assertEquals(java.util.Set.of("WARP"), n.flags());
    fake.on(
        "GET",
        B44 + "/node/gpu-a-0",
        200,
        "{\"nodes\":[{\"name\":\"gpu-a-0\",\"state\":[\"HIBERNATING\",\"WARP\"]}]}");
    n = v44().getNode("gpu-a-0");
    assertEquals("unknown", n.state());
    assertEquals(java.util.Set.of("HIBERNATING", "WARP"), n.flags());
  }

  /**
   * Numbers beyond any sane range: a slurmd start time in year 292 billion would make the node's
   * registration look newer than any pod; it reads as "not set" instead.
   */
  @Test
  void hugeNumbers() {
    fake.on(
        "GET",
        B38 + "/node/gpu-a-0",
        200,
        "{\"nodes\":[{\"name\":\"gpu-a-0\",\"state\":\"idle\",\"cpus\":1e30,"
            + "\"slurmd_start_time\":9223372036854775807}]}");
    SlurmNode n = v38().getNode("gpu-a-0");
    assertNull(n.slurmdStartTime());
    assertEquals(0, n.cpus());
    fake.on(
        "GET",
        B44 + "/node/gpu-a-0",
        200,
        "{\"nodes\":[{\"name\":\"gpu-a-0\",\"state\":[\"IDLE\"],\"cpus\":99999999999}]}");
    assertEquals(Integer.MAX_VALUE, v44().getNode("gpu-a-0").cpus());
    fake.on(
        "GET",
        B44 + "/node/gpu-a-0",
        200,
        "{\"nodes\":[{\"name\":\"gpu-a-0\",\"state\":[\"IDLE\"],\"slurmd_start_time\":"
            + "{\"set\":true,\"infinite\":false,\"number\":9223372036854775807}}]}");
    assertEquals(
        "get node gpu-a-0: unreadable entry: Instant exceeds minimum or maximum instant",
        unavailable(() -> v44().getNode("gpu-a-0")));
  }
}
