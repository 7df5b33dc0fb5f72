package dev.flowpipe.node.webapp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy in front of the node's HTTP port whose connections a test can cut, as a network drop would: open ones are
 * closed, and while cut, new ones are closed at once. The browser's streams then really drop and reconnect.
 */
final class CuttableProxy implements AutoCloseable {

  private final ServerSocket server;
  private final int targetPort;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;

  CuttableProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofPlatform().daemon().name("cuttable-proxy").start(this::accept);
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /** Closes every open connection and refuses new ones until {@link #restore()}. */
  void cut() {
    cut = true;
    for (Socket socket : sockets) {
      closeQuietly(socket);
    }
  }

  void restore() {
    cut = false;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (cut) {
          closeQuietly(client);
          continue;
        }
        Socket target = new Socket();
        target.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
        sockets.add(client);
        sockets.add(target);
        pipe(client, target);
        pipe(target, client);
      } catch (IOException e) {
        // the server socket closed, or the node refused: the browser sees a failed connection
      }
    }
  }

  private void pipe(Socket from, Socket to) {
    Thread.ofPlatform().daemon().start(() -> {
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        in.transferTo(out);
      } catch (IOException e) {
        // cut or closed
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    });
  }

  private void closeQuietly(Socket socket) {
    sockets.remove(socket);
    try {
      socket.close();
    } catch (IOException e) {
      // closed already
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    cut();
  }
}
