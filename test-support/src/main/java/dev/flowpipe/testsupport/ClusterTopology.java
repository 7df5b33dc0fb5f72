package dev.flowpipe.testsupport;

import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.BrokerInfo;
import io.camunda.zeebe.client.api.response.PartitionBrokerHealth;
import io.camunda.zeebe.client.api.response.PartitionBrokerRole;
import io.camunda.zeebe.client.api.response.PartitionInfo;
import io.camunda.zeebe.client.api.response.Topology;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A cluster's topology as a gateway sees it (the official client's topology request): who leads which partition,
 * waited for after a kill, and whether a restarted node has rejoined.
 */
public final class ClusterTopology {

  private static final Duration POLL = Duration.ofMillis(200);

  private ClusterTopology() {}

  /** The topology through {@code gateway}, or null if the gateway does not answer within 2 s. */
  public static Topology of(URI gateway) {
    try (ZeebeClient client = ZeebeClient.newClientBuilder().grpcAddress(gateway).usePlaintext().build()) {
      return client.newTopologyRequest().send().join(2, TimeUnit.SECONDS);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** The node leading each partition, by partition id; partitions without a leader are left out. */
  public static Map<Integer, Integer> leaders(Topology topology) {
    Map<Integer, Integer> leaders = new TreeMap<>();
    if (topology != null) {
      for (BrokerInfo broker : topology.getBrokers()) {
        for (PartitionInfo partition : broker.getPartitions()) {
          if (partition.isLeader()) {
            leaders.put(partition.getPartitionId(), broker.getNodeId());
          }
        }
      }
    }
    return leaders;
  }

  /** Until each of {@code partitions} partitions has a leader; returns them. */
  public static Map<Integer, Integer> awaitLeaders(URI gateway, int partitions, Duration atMost) throws InterruptedException {
    return await(gateway, atMost, "a leader for each of " + partitions + " partitions",
        topology -> leaders(topology).size() == partitions, ClusterTopology::leaders);
  }

  /** Until a node other than {@code formerLeader} leads {@code partition}; returns that node. */
  public static int awaitNewLeader(URI gateway, int partition, int formerLeader, Duration atMost)
      throws InterruptedException {
    Predicate<Topology> led = topology -> topology.getBrokers().stream().anyMatch(broker ->
        broker.getNodeId() != formerLeader && broker.getPartitions().stream()
            .anyMatch(p -> p.getPartitionId() == partition && p.isLeader()));
    return await(gateway, atMost, "a leader of partition " + partition + " other than node " + formerLeader, led,
        topology -> topology.getBrokers().stream().filter(broker -> broker.getNodeId() != formerLeader
            && broker.getPartitions().stream().anyMatch(p -> p.getPartitionId() == partition && p.isLeader()))
            .findFirst().orElseThrow().getNodeId());
  }

  /** Until {@code node} shows with all {@code partitions} partitions, each healthy, as leader or follower. */
  public static void awaitRejoined(URI gateway, int node, int partitions, Duration atMost) throws InterruptedException {
    await(gateway, atMost, "node " + node + " back with its " + partitions + " partitions",
        topology -> rejoined(topology, node, partitions), topology -> null);
  }

  public static boolean rejoined(Topology topology, int node, int partitions) {
    return topology.getBrokers().stream().filter(broker -> broker.getNodeId() == node).anyMatch(broker -> {
      List<PartitionInfo> held = broker.getPartitions();
      return held.size() == partitions && held.stream().allMatch(p -> p.getHealth() == PartitionBrokerHealth.HEALTHY
          && (p.getRole() == PartitionBrokerRole.LEADER || p.getRole() == PartitionBrokerRole.FOLLOWER));
    });
  }

  private static <T> T await(URI gateway, Duration atMost, String what, Predicate<Topology> until,
      java.util.function.Function<Topology, T> result) throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    Topology topology = null;
    while (System.nanoTime() < deadline) {
      topology = of(gateway);
      if (topology != null && until.test(topology)) {
        return result.apply(topology);
      }
      Thread.sleep(POLL.toMillis());
    }
    throw new IllegalStateException("no " + what + " within " + atMost + " (gateway " + gateway + "; last topology: "
        + describe(topology) + ")");
  }

  /** One line per broker: its partitions with role and health. */
  public static String describe(Topology topology) {
    if (topology == null) {
      return "none";
    }
    StringBuilder text = new StringBuilder();
    for (BrokerInfo broker : topology.getBrokers()) {
      text.append(" node ").append(broker.getNodeId()).append(':');
      for (PartitionInfo p : broker.getPartitions()) {
        text.append(' ').append(p.getPartitionId()).append('=').append(p.getRole()).append('/').append(p.getHealth());
      }
    }
    return text.toString();
  }
}
