package dev.tandem.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;

/**
 * The requests Tandem made to the API server, counted from the control plane's audit log (one JSON
 * event per line): events whose User-Agent is Tandem's ({@code tandem/<version>}, what {@code
 * KubeClients} sends), apart from the benchmark's or test's own clients. A request counts once: a
 * watch when it opens (its ResponseStarted), every other request when it completes. The log is read
 * on from where the last count stopped; the audit policy leaves out node Lease renewals, which are
 * the kubelet's (docs/kube-local.md). A test may count only some requests (e.g. pod creates).
 */
public final class TandemRequests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String AGENT = "tandem/";

  private final Path auditLog;
  private final Predicate<JsonNode> which;
  private long offset;
  private long count;

  /** Every request of Tandem's. */
  public TandemRequests(Path auditLog) {
    this(auditLog, e -> true);
  }

  /** Tandem's requests whose audit event matches {@code which}. */
  public TandemRequests(Path auditLog, Predicate<JsonNode> which) {
    this.auditLog = auditLog;
    this.which = which;
  }

  /** Every Tandem request logged so far. */
  public synchronized long count() throws IOException {
    if (!Files.exists(auditLog)) {
      return count;
    }
    try (RandomAccessFile f = new RandomAccessFile(auditLog.toFile(), "r")) {
      if (f.length() < offset) {
        offset = 0; // rotated (past 200 MB): the new file from its start
      }
      f.seek(offset);
      byte[] rest = new byte[(int) Math.min(f.length() - offset, Integer.MAX_VALUE - 8)];
      f.readFully(rest);
      int end = lastNewline(rest);
      for (String line : new String(rest, 0, end, StandardCharsets.UTF_8).split("\n")) {
        if (line.contains(AGENT)) {
          JsonNode event = JSON.readTree(line);
          if (counts(event) && which.test(event)) {
            count++;
          }
        }
      }
      offset += end;
    }
    return count;
  }

  static boolean counts(JsonNode event) {
    if (!event.path("userAgent").asText().startsWith(AGENT)) {
      return false;
    }
    String stage = event.path("stage").asText();
    return "watch".equals(event.path("verb").asText())
        ? "ResponseStarted".equals(stage)
        : "ResponseComplete".equals(stage);
  }

  /** The length of the complete lines: a line being written is left for the next count. */
  private static int lastNewline(byte[] b) {
    for (int i = b.length - 1; i >= 0; i--) {
      if (b[i] == '\n') {
        return i + 1;
      }
    }
    return 0;
  }
}
