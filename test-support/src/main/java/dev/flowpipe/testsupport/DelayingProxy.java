package dev.flowpipe.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A TCP proxy on loopback that holds every chunk of bytes, in each direction, for a fixed one-way delay before passing
 * it on: a peer behind it answers a round trip at least twice the delay later, as one across a network would. It does
 * not limit throughput: a chunk read at t is written at t + delay while reading goes on (per direction a reader that
 * stamps chunks with their due time and a writer that waits for each in order). Bytes only, no protocol, so it can
 * stand in front of any TCP service (a search store's HTTP port, a broker's gRPC or cluster port).
 *
 * <p>What it does not model: the TCP handshake is not delayed (it accepts at once and connects to the target at once),
 * bandwidth is not limited, and the bytes held per direction are not bounded (a sender far ahead of its receiver
 * fills memory instead of being slowed). An end of stream is passed on as a half-close after the delay; a reset
 * closes both sides.
 *
 * <p>The delays can change while connections are open, and differ per direction ({@link #delay}): bytes toward the
 * target ("up") model what the connecting side sends, bytes back ("down") what the target answers. A chunk is due at
 * its arrival plus the delay in force then, and never before the chunk read ahead of it (order is kept).
 */
public final class DelayingProxy implements AutoCloseable {

  private static final int CHUNK_BYTES = 64 * 1024;

  private final ServerSocket server;
  private final InetSocketAddress target;
  private volatile long upNanos;
  private volatile long downNanos;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

  private DelayingProxy(ServerSocket server, InetSocketAddress target, Duration oneWayDelay) {
    this.server = server;
    this.target = target;
    this.upNanos = oneWayDelay.toNanos();
    this.downNanos = oneWayDelay.toNanos();
  }

  /**
   * From now on, holds bytes sent toward the target for {@code up} and bytes coming back for {@code down}: a delay on
   * one side's outgoing traffic only, or a round trip split unevenly.
   */
  public DelayingProxy delay(Duration up, Duration down) {
    if (up.isNegative() || down.isNegative()) {
      throw new IllegalArgumentException("delays must not be negative, were " + up + " and " + down);
    }
    upNanos = up.toNanos();
    downNanos = down.toNanos();
    return this;
  }

  /** A proxy on a free loopback port in front of {@code target}, delaying each direction by {@code oneWayDelay}. */
  public static DelayingProxy start(InetSocketAddress target, Duration oneWayDelay) throws IOException {
    return start(0, target, oneWayDelay);
  }

  /** The same on a given loopback port (0: any free one), for a service that must be reached at a known address. */
  public static DelayingProxy start(int port, InetSocketAddress target, Duration oneWayDelay) throws IOException {
    return start(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), target, oneWayDelay);
  }

  /**
   * The same on a given address, e.g. one of loopback's other addresses (127.x.y.z): proxies on one port but different
   * addresses tell apart who connects, when each client is given its own address for the same name.
   */
  public static DelayingProxy start(InetSocketAddress listenAt, InetSocketAddress target, Duration oneWayDelay)
      throws IOException {
    if (oneWayDelay.isNegative()) {
      throw new IllegalArgumentException("one-way delay must not be negative, was " + oneWayDelay);
    }
    DelayingProxy proxy = new DelayingProxy(
        new ServerSocket(listenAt.getPort(), 50, listenAt.getAddress()), target, oneWayDelay);
    Thread.ofPlatform().daemon().name("delaying-proxy-accept-" + proxy.port()).start(proxy::acceptConnections);
    return proxy;
  }

  public int port() {
    return server.getLocalPort();
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(server.getInetAddress(), port());
  }

  private void acceptConnections() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Thread.ofPlatform().daemon().name("delaying-proxy-connect-" + port()).start(() -> connect(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void connect(Socket client) {
    Socket upstream = new Socket();
    sockets.add(client);
    sockets.add(upstream);
    try {
      upstream.connect(target, 10_000);
      // each chunk should leave as soon as it is due, not wait to fill a segment
      client.setTcpNoDelay(true);
      upstream.setTcpNoDelay(true);
      new Direction(client, upstream, true).start("up");
      new Direction(upstream, client, false).start("down");
    } catch (IOException e) {
      closeBoth(client, upstream);
    }
  }

  private void closeBoth(Socket a, Socket b) {
    for (Socket socket : new Socket[] {a, b}) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
      sockets.remove(socket);
    }
  }

  /** A chunk read and when it is due on the other side; no bytes: end of stream ({@code reset}: ended by an error). */
  private record Chunk(long dueNanos, byte[] bytes, boolean reset) {}

  /** One direction of one connection: a reader stamping chunks, a writer passing each on when it is due. */
  private final class Direction {
    private final Socket from;
    private final Socket to;
    private final boolean up;
    private final BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
    private long lastDueNanos;

    Direction(Socket from, Socket to, boolean up) {
      this.from = from;
      this.to = to;
      this.up = up;
    }

    /** Now plus the delay in force, but not before the chunk ahead (a shortened delay must not reorder bytes). */
    private long due() {
      lastDueNanos = Math.max(lastDueNanos, System.nanoTime() + (up ? upNanos : downNanos));
      return lastDueNanos;
    }

    void start(String name) {
      String prefix = "delaying-proxy-" + port() + "-" + name;
      Thread.ofPlatform().daemon().name(prefix + "-read").start(this::read);
      Thread.ofPlatform().daemon().name(prefix + "-write").start(this::write);
    }

    private void read() {
      byte[] buffer = new byte[CHUNK_BYTES];
      try {
        InputStream in = from.getInputStream();
        int read;
        while ((read = in.read(buffer)) >= 0) {
          chunks.add(new Chunk(due(), Arrays.copyOf(buffer, read), false));
        }
        chunks.add(new Chunk(due(), null, false));
      } catch (IOException e) {
        chunks.add(new Chunk(due(), null, true));
      }
    }

    private void write() {
      try {
        OutputStream out = to.getOutputStream();
        while (true) {
          Chunk chunk = chunks.take();
          long wait = chunk.dueNanos() - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(Duration.ofNanos(wait));
          }
          if (chunk.reset()) {
            closeBoth(from, to);
            return;
          }
          if (chunk.bytes() == null) {
            to.shutdownOutput();
            if (from.isOutputShutdown()) { // the other direction has ended too
              closeBoth(from, to);
            }
            return;
          }
          out.write(chunk.bytes());
        }
      } catch (IOException | InterruptedException e) {
        closeBoth(from, to);
      }
    }
  }

  /** Stops accepting and closes every connection through the proxy. */
  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    sockets.clear();
  }
}
