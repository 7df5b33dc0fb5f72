package dev.flowpipe.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** A TCP server on loopback that sends back every byte it receives, on each connection until the client ends it. */
public final class EchoServer implements AutoCloseable {

  private final ServerSocket server;

  private EchoServer(ServerSocket server) {
    this.server = server;
  }

  public static EchoServer start() throws IOException {
    EchoServer echo = new EchoServer(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    Thread.ofPlatform().daemon().name("echo-accept").start(echo::acceptConnections);
    return echo;
  }

  private void acceptConnections() {
    while (!server.isClosed()) {
      try {
        Socket connection = server.accept();
        Thread.ofPlatform().daemon().name("echo").start(() -> echoAll(connection));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private static void echoAll(Socket connection) {
    try (connection) {
      connection.getInputStream().transferTo(connection.getOutputStream());
    } catch (IOException e) {
      // the client went away
    }
  }

  /** One byte to an echo server and back on {@code client}; fails if another comes back. */
  public static void roundTrip(Socket client) throws IOException {
    client.getOutputStream().write('x');
    client.getOutputStream().flush();
    int back = client.getInputStream().read();
    if (back != 'x') {
      throw new IOException("the echo sent back " + back + " instead of 'x'");
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), port());
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
