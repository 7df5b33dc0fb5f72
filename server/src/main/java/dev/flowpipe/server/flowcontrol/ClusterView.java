package dev.flowpipe.server.flowcontrol;

import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.BrokerInfo;
import io.camunda.zeebe.client.api.response.PartitionInfo;
import io.camunda.zeebe.client.api.response.Topology;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The cluster as the gateway's topology shows it at one moment: each partition's leader and each broker's host.
 *
 * @param leaders partition id to the node id of its leader (a partition without a leader is missing)
 * @param hosts node id to the broker's advertised host
 * @param partitions every partition the topology names
 */
public record ClusterView(Map<Integer, Integer> leaders, Map<Integer, String> hosts, Set<Integer> partitions) {

  public static final ClusterView EMPTY = new ClusterView(Map.of(), Map.of(), Set.of());

  /** Asks the gateway. */
  public static ClusterView of(ZeebeClient client, Duration timeout) {
    Topology topology = client.newTopologyRequest().requestTimeout(timeout).send()
        .join(timeout.toMillis(), TimeUnit.MILLISECONDS);
    return of(topology);
  }

  static ClusterView of(Topology topology) {
    Map<Integer, Integer> leaders = new HashMap<>();
    Map<Integer, String> hosts = new HashMap<>();
    Set<Integer> partitions = new TreeSet<>();
    for (BrokerInfo broker : topology.getBrokers()) {
      hosts.put(broker.getNodeId(), broker.getHost());
      for (PartitionInfo partition : broker.getPartitions()) {
        partitions.add(partition.getPartitionId());
        if (partition.isLeader()) {
          leaders.put(partition.getPartitionId(), broker.getNodeId());
        }
      }
    }
    return new ClusterView(Map.copyOf(leaders), Map.copyOf(hosts), Set.copyOf(partitions));
  }
}
