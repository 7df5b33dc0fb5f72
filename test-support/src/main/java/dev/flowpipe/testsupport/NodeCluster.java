package dev.flowpipe.testsupport;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The node processes of a cluster on loopback (the crash suites and the network scenarios): each with its own ports, data and record directory, all
 * writing to one store of the run's own (so the read model outlives any node), a node killed and restarted on its data
 * and ports as a whole.
 */
public final class NodeCluster implements AutoCloseable {

  private final Path root;
  private final Path work;
  private final List<NodeProcess.Ports> ports = new ArrayList<>();
  private final List<Path> nodeDirectories = new ArrayList<>();
  private final List<List<String>> arguments = new ArrayList<>();
  private final List<List<String>> wrappers = new ArrayList<>();
  private final List<NodeProcess> nodes = new ArrayList<>();
  private final String recorderClasspath;

  /**
   * Launches {@code size} nodes and waits until each is ready.
   *
   * @param nodeArguments a node's arguments by its record directory
   */
  public NodeCluster(Path root, Path work, int size, int replicationFactor, String storeUrl,
      java.util.function.Function<Path, List<String>> nodeArguments) throws Exception {
    this(root, work, size, replicationFactor, direct(storeUrl), nodeArguments);
  }

  /** How the nodes reach each other and the store. */
  public interface Wiring {
    /** Node {@code id}'s contact points, store URL and, where it is reached other than on its ports, its addresses. */
    List<String> arguments(int id, List<NodeProcess.Ports> ports);

    /** The command node {@code id} is run by (see {@link NodeProcess#launch(Path, Path, NodeProcess.Ports, List,
     * List, String)}); none by default. */
    default List<String> wrapper(int id) {
      return List.of();
    }
  }

  /** Each node reached on its own ports, all writing to the run's own store, shared. */
  public static Wiring direct(String storeUrl) {
    return (id, ports) -> List.of(
        "--flowpipe.broker.contact-points=" + ports.stream().map(p -> "127.0.0.1:" + p.internal())
            .collect(Collectors.joining(",")),
        // a node's embedded store would go down with the node
        "--flowpipe.store.url=" + storeUrl);
  }

  /**
   * Launches {@code size} nodes wired by {@code wiring} and waits until each is ready.
   *
   * @param nodeArguments a node's arguments by its record directory
   */
  public NodeCluster(Path root, Path work, int size, int replicationFactor, Wiring wiring,
      java.util.function.Function<Path, List<String>> nodeArguments) throws Exception {
    this.root = root;
    this.work = work;
    this.recorderClasspath = root.resolve("system-tests/target/classes").toString();
    for (int id = 0; id < size; id++) {
      ports.add(NodeProcess.Ports.free());
      // a scratch directory of its own, so that its node.log stays after the run (only top-level logs stay)
      nodeDirectories.add(ScratchDirectories.create("bench-cluster-node-" + id + "-"));
    }
    for (int id = 0; id < size; id++) {
      List<String> args = new ArrayList<>(nodeArguments.apply(recordDirectory(id)));
      args.addAll(List.of(
          "--flowpipe.broker.node-id=" + id,
          "--flowpipe.broker.cluster-size=" + size,
          "--flowpipe.broker.replication-factor=" + replicationFactor));
      args.addAll(wiring.arguments(id, ports));
      arguments.add(args);
      wrappers.add(wiring.wrapper(id));
    }
    try {
      for (int id = 0; id < size; id++) {
        nodes.add(launch(id));
      }
      for (NodeProcess node : nodes) {
        node.awaitReady();
      }
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  private NodeProcess launch(int id) throws IOException {
    return NodeProcess.launch(root, nodeDirectories.get(id), ports.get(id), wrappers.get(id), arguments.get(id),
        recorderClasspath);
  }

  public int size() {
    return nodes.size();
  }

  public NodeProcess node(int id) {
    return nodes.get(id);
  }

  public URI gateway(int id) {
    return nodes.get(id).gateway();
  }

  /** Where node {@code id}'s recording exporter writes. */
  public Path recordDirectory(int id) {
    return work.resolve("records").resolve("node-" + id);
  }

  public List<Path> recordDirectories() {
    List<Path> directories = new ArrayList<>();
    for (int id = 0; id < ports.size(); id++) {
      directories.add(recordDirectory(id));
    }
    return directories;
  }

  /** SIGKILL to node {@code id}; returns once it has exited. */
  public void kill(int id) throws InterruptedException {
    nodes.get(id).kill();
  }

  /** Starts node {@code id} again on its data and ports and waits until it is ready. */
  public void restart(int id) throws Exception {
    NodeProcess node = launch(id);
    nodes.set(id, node);
    node.awaitReady();
  }

  @Override
  public void close() throws InterruptedException {
    for (NodeProcess node : nodes) {
      node.close();
    }
  }
}
