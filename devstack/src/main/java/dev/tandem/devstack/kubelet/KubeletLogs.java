package dev.tandem.devstack.kubelet;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's HTTPS endpoint that {@code kubectl logs} reaches: the API server proxies {@code
 * pods/log} to {@code https://<node
 * InternalIP>:<daemonEndpoints.kubeletEndpoint.Port>/containerLogs /<ns>/<pod>/<container>}, and
 * this answers from the files the kubelet writes ({@link KubeletConfig#logFile}), one port for all
 * its nodes. Query: {@code tailLines} (the last N lines), {@code limitBytes} (at most N bytes),
 * {@code follow=true} (then new output as it is written, until the container stops or the client
 * hangs up). No file yet: an empty log. The certificate is self-signed, made by the JDK's keytool
 * at start: the local plane does not verify kubelets' (docs/kube-local.md).
 */
final class KubeletLogs implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeletLogs.class);
  private static final String PREFIX = "/containerLogs/";
  private static final long FOLLOW_EVERY_MS = 200;

  private final KubeletConfig config;
  private final Predicate<String> running;
  private final HttpsServer server;
  private final ExecutorService threads;

  /**
   * @param running whether the container of pod {@code <ns>/<name>} runs (a follow ends when not)
   */
  private KubeletLogs(KubeletConfig config, Predicate<String> running, SSLContext ssl)
      throws IOException {
    this.config = config;
    this.running = running;
    threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "local-kubelet-logs");
              t.setDaemon(true);
              return t;
            });
    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setHttpsConfigurator(new HttpsConfigurator(ssl));
    server.setExecutor(threads);
    server.createContext(PREFIX, this::handle);
    server.start();
  }

  static KubeletLogs start(KubeletConfig config, Predicate<String> running) throws IOException {
    return new KubeletLogs(config, running, selfSigned());
  }

  int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String[] parts = ex.getRequestURI().getPath().substring(PREFIX.length()).split("/");
      if (!"GET".equals(ex.getRequestMethod()) || parts.length != 3) {
        ex.sendResponseHeaders(404, -1);
        return;
      }
      Map<String, String> q = query(ex.getRequestURI().getRawQuery());
      long limit =
          q.containsKey("limitBytes") ? Long.parseLong(q.get("limitBytes")) : Long.MAX_VALUE;
      boolean follow = "true".equals(q.get("follow"));
      Path file = config.logFile(parts[0], parts[1], parts[2]);
      ex.getResponseHeaders().set("Content-Type", "text/plain");
      ex.sendResponseHeaders(200, 0);
      OutputStream out = ex.getResponseBody();
      byte[] head = file == null ? new byte[0] : readFrom(file, 0);
      long offset = head.length;
      if (q.containsKey("tailLines")) {
        head = tail(head, Integer.parseInt(q.get("tailLines")));
      }
      limit -= write(out, head, 0, head.length, limit);
      String pod = parts[0] + "/" + parts[1];
      while (follow && limit > 0 && running.test(pod) && file != null) {
        byte[] more = readFrom(file, offset);
        offset += more.length;
        limit -= write(out, more, 0, more.length, limit);
        Thread.sleep(FOLLOW_EVERY_MS);
      }
    } catch (IOException | NumberFormatException e) {
      log.debug("log request {}: {}", ex.getRequestURI(), e.toString()); // the client hung up
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static long write(OutputStream out, byte[] b, int from, int len, long limit)
      throws IOException {
    int n = (int) Math.min(len, limit);
    if (n > 0) {
      out.write(b, from, n);
      out.flush();
    }
    return n;
  }

  private static byte[] readFrom(Path file, long offset) throws IOException {
    if (!Files.exists(file)) {
      return new byte[0];
    }
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      if (f.length() <= offset) {
        return new byte[0];
      }
      f.seek(offset);
      byte[] b = new byte[(int) Math.min(f.length() - offset, 64 << 20)];
      f.readFully(b);
      return b;
    }
  }

  /** The last {@code lines} lines of {@code b} (a last line without a newline counts). */
  static byte[] tail(byte[] b, int lines) {
    if (lines <= 0) {
      return new byte[0];
    }
    int i = b.length > 0 && b[b.length - 1] == '\n' ? b.length - 1 : b.length;
    for (int seen = 0; i > 0; i--) {
      if (b[i - 1] == '\n' && ++seen == lines) {
        break;
      }
    }
    return Arrays.copyOfRange(b, i, b.length);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw != null) {
      for (String kv : raw.split("&")) {
        int eq = kv.indexOf('=');
        if (eq > 0) {
          q.put(
              kv.substring(0, eq), URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
    }
    return q;
  }

  /** A key pair and a self-signed certificate for 127.0.0.1, by the JDK's keytool. */
  private static SSLContext selfSigned() throws IOException {
    Path dir = Files.createTempDirectory("tandem-kubelet-tls-");
    Path store = dir.resolve("kubelet.p12");
    char[] pass = "local-kubelet".toCharArray();
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process p =
        new ProcessBuilder(
                List.of(
                    keytool.toString(),
                    "-genkeypair",
                    "-alias",
                    "kubelet",
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=local-kubelet",
                    "-ext",
                    "san=ip:127.0.0.1",
                    "-validity",
                    "3650",
                    "-storetype",
                    "PKCS12",
                    "-keystore",
                    store.toString(),
                    "-storepass",
                    new String(pass)))
            .redirectErrorStream(true)
            .start();
    try {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException(keytool + " -genkeypair failed: " + out);
      }
      KeyStore ks = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        ks.load(in, pass);
      }
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, pass);
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(kmf.getKeyManagers(), null, null);
      return ssl;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while making the kubelet's certificate", e);
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException("the kubelet's certificate does not load: " + e, e);
    } finally {
      Files.deleteIfExists(store);
      Files.deleteIfExists(dir);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
