package dev.flowpipe.benchmarks.scenario.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.EchoServer;

/**
 * The links of {@code slow-network} with echo servers standing in for three nodes' cluster and command ports and for
 * the store: delaying one node's outgoing traffic slows exactly the round trips in which that node sends (its requests
 * to the others, its answers to them, its store requests) and none of the others'. The namespaces that give each node
 * its own hosts file are not needed here: each link has an address of its own, connected to directly.
 */
class PairwiseLinksTest {

  private static final Duration DELAY = Duration.ofMillis(150);
  /** Well under the delay, with room for a busy machine: a loopback round trip takes well under a millisecond. */
  private static final Duration FAST = Duration.ofMillis(100);

  private final List<EchoServer> echoes = new ArrayList<>();
  private PairwiseLinks links;

  @BeforeEach
  void start(@TempDir Path hosts) throws IOException {
    List<NodeProcess.Ports> ports = new ArrayList<>();
    for (int node = 0; node < SlowNetwork.NODES; node++) {
      ports.add(new NodeProcess.Ports(0, 0, echo(), echo(), 0, 0));
    }
    links = new PairwiseLinks(SlowNetwork.NODES, URI.create("http://127.0.0.1:" + echo()), hosts);
    for (int node = 0; node < SlowNetwork.NODES; node++) {
      assertThat(links.arguments(node, ports)).contains(
          "--flowpipe.broker.advertised-host=" + PairwiseLinks.host(node),
          "--flowpipe.store.url=" + links.storeUrl(node));
    }
  }

  @AfterEach
  void stop() throws IOException {
    links.close();
    for (EchoServer echo : echoes) {
      echo.close();
    }
  }

  @Test
  void aDelayedNodesSendsAreSlowAndNoOneElses() throws IOException {
    links.delayOutgoing(1, DELAY);

    // node 1 sends: requests it makes, answers it gives, its store requests
    assertThat(roundTrip(clusterLink(1, 0))).isGreaterThanOrEqualTo(DELAY);
    assertThat(roundTrip(commandLink(1, 2))).isGreaterThanOrEqualTo(DELAY);
    assertThat(roundTrip(clusterLink(0, 1))).as("node 1 answers node 0").isGreaterThanOrEqualTo(DELAY);
    assertThat(roundTrip(commandLink(2, 1))).as("node 1 answers node 2's gateway").isGreaterThanOrEqualTo(DELAY);
    assertThat(roundTrip(storeLink(1))).isGreaterThanOrEqualTo(DELAY);
    // node 1 not in the round trip
    assertThat(roundTrip(clusterLink(0, 2))).isLessThan(FAST);
    assertThat(roundTrip(clusterLink(2, 0))).isLessThan(FAST);
    assertThat(roundTrip(commandLink(0, 2))).isLessThan(FAST);
    assertThat(roundTrip(storeLink(0))).isLessThan(FAST);
    assertThat(roundTrip(storeLink(2))).isLessThan(FAST);
  }

  @Test
  void movingTheDelayToAnotherNodeOrRemovingItUndelaysTheFormerOnesLinks() throws IOException {
    links.delayOutgoing(1, DELAY);
    links.delayOutgoing(2, DELAY);
    assertThat(roundTrip(clusterLink(1, 0))).isLessThan(FAST);
    assertThat(roundTrip(clusterLink(0, 1))).isLessThan(FAST);
    assertThat(roundTrip(clusterLink(2, 0))).isGreaterThanOrEqualTo(DELAY);

    links.delayOutgoing(-1, Duration.ZERO);
    for (int from = 0; from < SlowNetwork.NODES; from++) {
      for (int to = 0; to < SlowNetwork.NODES; to++) {
        assertThat(roundTrip(clusterLink(from, to))).as(from + " -> " + to).isLessThan(FAST);
      }
      assertThat(roundTrip(storeLink(from))).isLessThan(FAST);
    }
  }

  private InetSocketAddress clusterLink(int from, int to) {
    return new InetSocketAddress(PairwiseLinks.linkAddress(from, to), links.advertisedInternalPort(to));
  }

  private InetSocketAddress commandLink(int from, int to) {
    return new InetSocketAddress(PairwiseLinks.linkAddress(from, to), links.advertisedCommandPort(to));
  }

  private InetSocketAddress storeLink(int node) {
    URI url = links.storeUrl(node);
    return new InetSocketAddress(url.getHost(), url.getPort());
  }

  /** The second round trip of one byte on a new connection (the first also sets the connection up). */
  private static Duration roundTrip(InetSocketAddress address) throws IOException {
    try (Socket client = new Socket(address.getAddress(), address.getPort())) {
      client.setTcpNoDelay(true);
      EchoServer.roundTrip(client);
      long start = System.nanoTime();
      EchoServer.roundTrip(client);
      return Duration.ofNanos(System.nanoTime() - start);
    }
  }

  private int echo() throws IOException {
    EchoServer echo = EchoServer.start();
    echoes.add(echo);
    return echo.port();
  }
}
