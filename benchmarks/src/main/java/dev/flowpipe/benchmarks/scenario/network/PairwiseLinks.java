package dev.flowpipe.benchmarks.scenario.network;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.NodeCluster;
import dev.flowpipe.testsupport.DelayingProxy;

/**
 * The network of a cluster on loopback with one delaying link per ordered pair of nodes, so that one node's outgoing
 * traffic can be delayed as {@code netem} on its host would delay it, and no one else's.
 *
 * <p>How: each node advertises a name ({@code node-<id>.flowpipe}) and ports of its own choosing; each node runs in a
 * mount namespace of its own ({@code unshare --mount}) in which {@code /etc/hosts} is a file of its own (the broker's
 * cluster messaging resolves names with Netty's DNS resolver, which reads only that file and DNS, so a JVM option would
 * not do), in which node {@code y}'s name is {@code 127.10.<x+1>.<y+1>} for node {@code x}. A {@link DelayingProxy} listens there on {@code y}'s advertised cluster port and another on its
 * advertised command port, forwarding to {@code y}'s real ports: every connection {@code x} opens to {@code y} (Raft,
 * membership, its gateway's commands) goes through the link {@code x -> y}, and nothing else does. The bytes
 * {@code x} sends go "up" that link; what {@code y} answers on it comes "down". Each node also reaches the store
 * through a proxy of its own (its exporter's bulks, its web app's searches).
 *
 * <p>Needs {@code unshare} and {@code mount} with the right to use them (root); {@link #checkNamespaces()} fails saying
 * so where they are missing.
 */
public final class PairwiseLinks implements NodeCluster.Wiring, AutoCloseable {

  private static final String DOMAIN = ".flowpipe";

  private final int size;
  private final Path directory;
  private final List<Integer> advertisedInternal = new ArrayList<>();
  private final List<Integer> advertisedCommand = new ArrayList<>();
  private final List<DelayingProxy> storeLinks = new ArrayList<>();
  private final List<DelayingProxy> proxies = new ArrayList<>();
  private DelayingProxy[][] internalLinks;
  private DelayingProxy[][] commandLinks;

  /** Links for {@code size} nodes; their hosts files go to {@code directory}. */
  public PairwiseLinks(int size, URI storeUrl, Path directory) throws IOException {
    if (size < 2 || size > 250) {
      throw new IllegalArgumentException("pairwise links join 2 to 250 nodes, not " + size);
    }
    this.size = size;
    this.directory = directory;
    Files.createDirectories(directory);
    InetSocketAddress store = new InetSocketAddress(storeUrl.getHost(), storeUrl.getPort());
    String systemHosts = Files.readString(Path.of("/etc/hosts"));
    for (int node = 0; node < size; node++) {
      advertisedInternal.add(NodeProcess.freePort());
      advertisedCommand.add(NodeProcess.freePort());
      storeLinks.add(track(DelayingProxy.start(store, Duration.ZERO)));
      StringBuilder hosts = new StringBuilder(systemHosts).append(systemHosts.endsWith("\n") ? "" : "\n");
      for (int to = 0; to < size; to++) {
        hosts.append(linkAddress(node, to).getHostAddress()).append(' ').append(host(to)).append('\n');
      }
      Files.writeString(hostsFile(node), hosts);
    }
  }

  /** Fails, saying what is missing, where a node could not be given a hosts file of its own. */
  public void checkNamespaces() throws IOException {
    List<String> probe = new ArrayList<>(wrapper(0));
    probe.addAll(List.of("getent", "hosts", host(1)));
    try {
      Process process = new ProcessBuilder(probe).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes()).strip();
      if (process.waitFor() != 0 || !output.startsWith(linkAddress(0, 1).getHostAddress())) {
        throw new IOException("a node cannot be given a hosts file of its own here ('" + String.join(" ", probe)
            + "' answered: " + output + "); slow-network needs unshare and mount, as root");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  public static String host(int node) {
    return "node-" + node + DOMAIN;
  }

  /** The address at which node {@code from} finds node {@code to}. */
  public static InetAddress linkAddress(int from, int to) {
    try {
      return InetAddress.getByAddress(new byte[] {127, 10, (byte) (from + 1), (byte) (to + 1)});
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e); // four bytes are always an address
    }
  }

  private Path hostsFile(int node) {
    return directory.resolve("hosts-node-" + node);
  }

  public int advertisedInternalPort(int node) {
    return advertisedInternal.get(node);
  }

  public int advertisedCommandPort(int node) {
    return advertisedCommand.get(node);
  }

  /** Where node {@code node} reaches the store. */
  public URI storeUrl(int node) {
    return URI.create("http://127.0.0.1:" + storeLinks.get(node).port());
  }

  @Override
  public synchronized List<String> arguments(int id, List<NodeProcess.Ports> ports) {
    if (internalLinks == null) {
      openLinks(ports);
    }
    return List.of(
        "--flowpipe.broker.advertised-host=" + host(id),
        "--flowpipe.broker.advertised-internal-port=" + advertisedInternal.get(id),
        "--flowpipe.broker.advertised-command-port=" + advertisedCommand.get(id),
        "--flowpipe.broker.contact-points=" + IntStream.range(0, size)
            .mapToObj(node -> host(node) + ":" + advertisedInternal.get(node)).collect(Collectors.joining(",")),
        "--flowpipe.store.url=" + storeUrl(id));
  }

  /** Runs the node in a mount namespace of its own, with its hosts file over {@code /etc/hosts}. */
  @Override
  public List<String> wrapper(int id) {
    return List.of("unshare", "--mount", "sh", "-c", "mount --bind \"$0\" /etc/hosts && exec \"$@\"",
        hostsFile(id).toString());
  }

  private void openLinks(List<NodeProcess.Ports> ports) {
    internalLinks = new DelayingProxy[size][size];
    commandLinks = new DelayingProxy[size][size];
    try {
      for (int from = 0; from < size; from++) {
        for (int to = 0; to < size; to++) {
          InetAddress at = linkAddress(from, to);
          internalLinks[from][to] = track(DelayingProxy.start(new InetSocketAddress(at, advertisedInternal.get(to)),
              new InetSocketAddress("127.0.0.1", ports.get(to).internal()), Duration.ZERO));
          commandLinks[from][to] = track(DelayingProxy.start(new InetSocketAddress(at, advertisedCommand.get(to)),
              new InetSocketAddress("127.0.0.1", ports.get(to).command()), Duration.ZERO));
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not open the links between the nodes: " + e.getMessage(), e);
    }
  }

  private DelayingProxy track(DelayingProxy proxy) {
    proxies.add(proxy);
    return proxy;
  }

  /**
   * From now on, what {@code node} sends (to every other node and to the store) is held for {@code delay}, and every
   * other link carries its bytes at once; {@code node} -1 (or a zero delay) undelays every link.
   */
  public synchronized void delayOutgoing(int node, Duration delay) {
    for (int from = 0; from < size; from++) {
      for (int to = 0; to < size; to++) {
        // a node's own sends to itself never leave its JVM (the broker short-cuts them)
        Duration up = from == node && to != node ? delay : Duration.ZERO;
        Duration down = to == node && from != node ? delay : Duration.ZERO;
        internalLinks[from][to].delay(up, down);
        commandLinks[from][to].delay(up, down);
      }
      storeLinks.get(from).delay(from == node ? delay : Duration.ZERO, Duration.ZERO);
    }
  }

  @Override
  public void close() {
    proxies.forEach(DelayingProxy::close);
  }
}
