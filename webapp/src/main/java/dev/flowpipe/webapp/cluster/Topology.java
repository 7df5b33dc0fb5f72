package dev.flowpipe.webapp.cluster;

import java.util.List;

/**
 * The cluster as a gateway sees it, in the shape of Camunda's REST API v2 {@code TopologyResponse} (8.8): its brokers
 * with the partitions each holds, and the cluster's settings.
 *
 * @param lastCompletedChangeId the last completed cluster change; {@code "-1"} where the gateway does not tell (a
 *     Zeebe 8.6 gateway's topology has no such field)
 */
public record Topology(List<Broker> brokers, int clusterSize, int partitionsCount, int replicationFactor,
    String gatewayVersion, String lastCompletedChangeId) {

  public Topology {
    brokers = List.copyOf(brokers);
  }

  /** A broker and the partitions it holds. */
  public record Broker(int nodeId, String host, int port, List<Partition> partitions, String version) {
    public Broker {
      partitions = List.copyOf(partitions);
    }
  }

  /**
   * One partition on one broker.
   *
   * @param role {@code leader}, {@code follower} or {@code inactive}
   * @param health {@code healthy}, {@code unhealthy} or {@code dead}
   */
  public record Partition(int partitionId, String role, String health) {}

  /** Whether some partition has a healthy leader: the cluster can take work (v2 {@code GET /status}). */
  public boolean hasHealthyLeader() {
    return brokers.stream().flatMap(broker -> broker.partitions().stream())
        .anyMatch(partition -> partition.role().equals("leader") && partition.health().equals("healthy"));
  }
}
