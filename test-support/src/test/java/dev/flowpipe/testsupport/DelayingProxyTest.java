package dev.flowpipe.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The proxy against a real echo server on loopback: it adds its round trip, and it does not pace a large transfer. */
class DelayingProxyTest {

  private static final Duration ONE_WAY = Duration.ofMillis(50);

  private static EchoServer echo;

  @BeforeAll
  static void startEchoServer() throws IOException {
    echo = EchoServer.start();
  }

  @AfterAll
  static void stopEchoServer() throws IOException {
    echo.close();
  }

  private static InetSocketAddress echoAddress() {
    return echo.address();
  }

  @Test
  void aRoundTripThroughTheProxyTakesAtLeastTwiceTheOneWayDelay() throws IOException {
    try (DelayingProxy proxy = DelayingProxy.start(echoAddress(), ONE_WAY);
        Socket client = new Socket(proxy.address().getAddress(), proxy.port())) {
      client.setTcpNoDelay(true);
      roundTrip(client); // the first one also sets the connection up

      long start = System.nanoTime();
      roundTrip(client);
      Duration roundTrip = Duration.ofNanos(System.nanoTime() - start);

      assertThat(roundTrip).isGreaterThanOrEqualTo(ONE_WAY.multipliedBy(2));
    }
  }

  @Test
  void delaysChangeOnAnOpenConnectionAndPerDirection() throws IOException {
    try (DelayingProxy proxy = DelayingProxy.start(echoAddress(), Duration.ZERO);
        Socket client = new Socket(proxy.address().getAddress(), proxy.port())) {
      client.setTcpNoDelay(true);
      roundTrip(client);
      // bounds with room for a busy machine: a loopback round trip takes well under a millisecond
      assertThat(timedRoundTrip(client)).as("no delay yet").isLessThan(ONE_WAY.multipliedBy(2));

      proxy.delay(ONE_WAY.multipliedBy(4), Duration.ZERO); // only what the client sends is held
      assertThat(timedRoundTrip(client)).isGreaterThanOrEqualTo(ONE_WAY.multipliedBy(4))
          .isLessThan(ONE_WAY.multipliedBy(8));

      proxy.delay(Duration.ZERO, Duration.ZERO);
      assertThat(timedRoundTrip(client)).as("the delay removed").isLessThan(ONE_WAY.multipliedBy(2));
    }
  }

  private static Duration timedRoundTrip(Socket client) throws IOException {
    long start = System.nanoTime();
    roundTrip(client);
    return Duration.ofNanos(System.nanoTime() - start);
  }

  @Test
  void aLargeTransferIsNotSlowedToOneChunkPerDelay() throws IOException {
    // 8 MB is at least 128 chunks of the proxy's 64 KB each way: paced at one chunk per delay it would take 6 s each way
    byte[] payload = new byte[8 * 1024 * 1024];
    new Random(7).nextBytes(payload);
    try (DelayingProxy proxy = DelayingProxy.start(echoAddress(), ONE_WAY);
        Socket client = new Socket(proxy.address().getAddress(), proxy.port())) {
      long start = System.nanoTime();
      OutputStream out = client.getOutputStream();
      out.write(payload);
      client.shutdownOutput(); // the half-close reaches the echo server, which then ends its side
      byte[] echoed = client.getInputStream().readAllBytes();
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(echoed).isEqualTo(payload); // all of it, in order
      assertThat(took).isGreaterThanOrEqualTo(ONE_WAY.multipliedBy(2)).isLessThan(Duration.ofSeconds(2));
    }
  }

  private static void roundTrip(Socket client) throws IOException {
    EchoServer.roundTrip(client);
  }
}
