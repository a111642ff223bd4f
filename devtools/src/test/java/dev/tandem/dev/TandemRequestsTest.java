package dev.tandem.dev;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Counting Tandem's requests in an audit log as the API server writes it. */
class TandemRequestsTest {
  @TempDir Path dir;

  private static String event(String id, String stage, String verb, String agent, String res) {
    return "{\"kind\":\"Event\",\"level\":\"Metadata\",\"auditID\":\""
        + id
        + "\",\"stage\":\""
        + stage
        + "\",\"verb\":\""
        + verb
        + "\",\"userAgent\":\""
        + agent
        + "\",\"objectRef\":{\"resource\":\""
        + res
        + "\",\"namespace\":\"default\"}}\n";
  }

  @Test
  void countsEachOfTandemsRequestsOnceAndReadsOnWhereItStopped() throws Exception {
    Path log = dir.resolve("audit.log");
    TandemRequests all = new TandemRequests(log);
    assertEquals(0, all.count(), "no log yet");
    Files.writeString(
        log,
        event("1", "ResponseComplete", "list", "tandem/0.1.0", "pods")
            + event("2", "ResponseStarted", "watch", "tandem/0.1.0", "pods")
            + event("3", "ResponseComplete", "create", "kubectl/v1.37.2", "pods")
            + event("4", "ResponseComplete", "create", "tandem/0.1.0 (linux)", "pods")
            // half a line: the server is still writing it
            + "{\"kind\":\"Event\",\"stage\":\"ResponseComplete\",\"userAgent\":\"tandem/");
    assertEquals(3, all.count(), "list, the watch's start and the create; not kubectl's");
    Files.writeString(
        log,
        "0.1.0\",\"verb\":\"get\",\"objectRef\":{\"resource\":\"nodes\"}}\n"
            + event("2", "ResponseComplete", "watch", "tandem/0.1.0", "pods"),
        StandardOpenOption.APPEND);
    assertEquals(4, all.count(), "the finished line counts; a watch's end does not");

    TandemRequests creates = new TandemRequests(log, e -> "create".equals(e.path("verb").asText()));
    assertEquals(1, creates.count());
  }
}
