package dev.tandem.devstack.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (Temporal, slurmrestd), for fault tests: it
 * passes bytes through until told to fail, and then fails the way networks and crashed servers do.
 *
 * <ul>
 *   <li>{@link Mode#PASS}: forward both ways.
 *   <li>{@link Mode#REFUSE}: close every open connection and stop listening, so new connections are
 *       refused (the server is down or unreachable); back to PASS listens on the same port again.
 *   <li>{@link Mode#CUT_RESPONSES}: forward requests, but close each connection after the first
 *       {@code cutAfterBytes} bytes of its response (the server died mid-answer).
 * </ul>
 *
 * One thread per direction per connection: fault tests open a handful of connections.
 */
public final class TcpProxy implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TcpProxy.class);

  /** What the proxy does with traffic. */
  public enum Mode {
    PASS,
    REFUSE,
    CUT_RESPONSES
  }

  private final InetSocketAddress target;
  private final int port;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong cut = new AtomicLong();
  private volatile Mode mode = Mode.PASS;
  private volatile int cutAfterBytes = 64;
  private volatile boolean closed;
  private ServerSocket server;
  private Thread acceptor;

  private TcpProxy(InetSocketAddress target, int port) {
    this.target = target;
    this.port = port;
  }

  /**
   * Listens on 127.0.0.1:{@code port} (0: any free port) and forwards to {@code host:targetPort}.
   */
  public static TcpProxy start(String host, int targetPort, int port) throws IOException {
    ServerSocket s = bind(port);
    TcpProxy p = new TcpProxy(new InetSocketAddress(host, targetPort), s.getLocalPort());
    p.listen(s);
    return p;
  }

  public int port() {
    return port;
  }

  /** {@code 127.0.0.1:<port>}. */
  public String address() {
    return "127.0.0.1:" + port;
  }

  public Mode mode() {
    return mode;
  }

  /** Connections accepted so far. */
  public long accepted() {
    return accepted.get();
  }

  /** Connections cut mid-response so far. */
  public long cutConnections() {
    return cut.get();
  }

  /** Forward everything again (listening again if it was refusing). */
  public synchronized void pass() throws IOException {
    if (mode == Mode.REFUSE && !closed) {
      listen(bind(port));
    }
    mode = Mode.PASS;
  }

  /** Drops every connection and refuses new ones until {@link #pass()}. */
  public synchronized void refuse() {
    mode = Mode.REFUSE;
    closeQuietly(server);
    dropAll();
  }

  /** Cuts each new or open connection after {@code bytes} bytes of response. */
  public synchronized void cutResponses(int bytes) throws IOException {
    if (mode == Mode.REFUSE && !closed) {
      listen(bind(port));
    }
    cutAfterBytes = bytes;
    mode = Mode.CUT_RESPONSES;
  }

  private static ServerSocket bind(int port) throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
    return s;
  }

  private void listen(ServerSocket s) {
    server = s;
    acceptor = new Thread(() -> acceptLoop(s), "tcp-proxy-" + port);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private void acceptLoop(ServerSocket s) {
    while (!s.isClosed()) {
      Socket client;
      try {
        client = s.accept();
      } catch (IOException e) {
        return; // closed by refuse() or close()
      }
      accepted.incrementAndGet();
      if (mode == Mode.REFUSE) {
        closeQuietly(client);
        continue;
      }
      Socket upstream = new Socket();
      try {
        upstream.connect(target, 2000);
      } catch (IOException e) {
        log.debug("proxy {}: upstream {} unreachable: {}", port, target, e.toString());
        closeQuietly(client);
        closeQuietly(upstream);
        continue;
      }
      open.add(client);
      open.add(upstream);
      pump(client, upstream, false);
      pump(upstream, client, true);
    }
  }

  private void pump(Socket from, Socket to, boolean response) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[8192];
              long sent = 0;
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  if (response && mode == Mode.CUT_RESPONSES) {
                    int allowed = (int) Math.max(0, Math.min(n, cutAfterBytes - sent));
                    out.write(buf, 0, allowed);
                    out.flush();
                    sent += allowed;
                    if (sent >= cutAfterBytes) {
                      cut.incrementAndGet();
                      break;
                    }
                    continue;
                  }
                  out.write(buf, 0, n);
                  out.flush();
                  sent += n;
                }
              } catch (SocketException e) {
                // the other side or a fault closed it
              } catch (IOException e) {
                log.debug("proxy {}: {}", port, e.toString());
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "tcp-proxy-" + port + (response ? "-down" : "-up"));
    t.setDaemon(true);
    t.start();
  }

  private void dropAll() {
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  private static void closeQuietly(java.io.Closeable c) {
    if (c == null) {
      return;
    }
    try {
      if (c instanceof Socket s && !s.isClosed()) {
        s.setSoLinger(true, 0); // RST: the peer sees the connection die, not a clean end
      }
      c.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    closeQuietly(server);
    dropAll();
  }
}
