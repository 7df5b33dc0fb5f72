package dev.flowpipe.node.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The Zeebe broker and its place in a cluster ({@code flowpipe.broker.*}).
 *
 * @param nodeId this broker's id in the cluster, 0 to cluster-size - 1
 * @param partitionsCount number of partitions of the log
 * @param replicationFactor copies of each partition; at most cluster-size
 * @param clusterSize number of brokers in the cluster
 * @param clusterName brokers only join a cluster of the same name
 * @param contactPoints other brokers' internal API addresses (host:port) to join; empty for a single node
 * @param host address the broker's internal and command APIs bind to
 * @param commandPort port of the command API (broker-to-broker and gateway-to-broker requests)
 * @param internalPort port of the internal API (cluster membership and replication)
 * @param advertisedHost the address other brokers and gateways use to reach this one; empty: {@code host} (set it
 *     when {@code host} is a wildcard such as 0.0.0.0, or when the broker is reached through a proxy or a NAT)
 * @param advertisedCommandPort the command API port others use; 0: {@code command-port}
 * @param advertisedInternalPort the internal API port others use; 0: {@code internal-port}
 * @param cpuThreads threads that run the engine
 * @param ioThreads threads for I/O work, the exporters among it
 * @param shutdownTimeout how long a clean shutdown may take before the node gives up waiting
 * @param additionalExporters further Zeebe exporters to run beside ours, by id (e.g. a stock exporter for comparison)
 */
public record BrokerProperties(
    @DefaultValue("0") int nodeId,
    @DefaultValue("1") int partitionsCount,
    @DefaultValue("1") int replicationFactor,
    @DefaultValue("1") int clusterSize,
    @DefaultValue("flowpipe") String clusterName,
    @DefaultValue List<String> contactPoints,
    @DefaultValue("127.0.0.1") String host,
    @DefaultValue("26501") int commandPort,
    @DefaultValue("26502") int internalPort,
    String advertisedHost,
    @DefaultValue("0") int advertisedCommandPort,
    @DefaultValue("0") int advertisedInternalPort,
    @DefaultValue("2") int cpuThreads,
    @DefaultValue("2") int ioThreads,
    @DefaultValue("30s") Duration shutdownTimeout,
    @DefaultValue Map<String, AdditionalExporter> additionalExporters) {

  private static final String P = "flowpipe.broker.";

  public BrokerProperties {
    Check.atLeast(P + "partitions-count", partitionsCount, 1);
    Check.atLeast(P + "cluster-size", clusterSize, 1);
    Check.atLeast(P + "replication-factor", replicationFactor, 1);
    if (replicationFactor > clusterSize) {
      throw new IllegalArgumentException(
          P + "replication-factor (" + replicationFactor + ") must not exceed " + P + "cluster-size (" + clusterSize
              + ")");
    }
    if (nodeId < 0 || nodeId >= clusterSize) {
      throw new IllegalArgumentException(
          P + "node-id must be between 0 and " + P + "cluster-size - 1 (" + (clusterSize - 1) + "), was " + nodeId);
    }
    Check.notBlank(P + "cluster-name", clusterName);
    Check.notBlank(P + "host", host);
    Check.port(P + "command-port", commandPort, false);
    Check.port(P + "internal-port", internalPort, false);
    advertisedHost = advertisedHost == null || advertisedHost.isBlank() ? host : advertisedHost.trim();
    advertisedPort(P + "advertised-command-port", advertisedCommandPort);
    advertisedPort(P + "advertised-internal-port", advertisedInternalPort);
    advertisedCommandPort = advertisedCommandPort == 0 ? commandPort : advertisedCommandPort;
    advertisedInternalPort = advertisedInternalPort == 0 ? internalPort : advertisedInternalPort;
    Check.atLeast(P + "cpu-threads", cpuThreads, 1);
    Check.atLeast(P + "io-threads", ioThreads, 1);
    Check.positive(P + "shutdown-timeout", shutdownTimeout);
    additionalExporters = additionalExporters == null ? Map.of() : Map.copyOf(additionalExporters);
    for (var exporter : additionalExporters.entrySet()) {
      Check.notBlank(P + "additional-exporters." + exporter.getKey() + ".class-name", exporter.getValue().className());
    }
    contactPoints = contactPoints == null ? List.of() : List.copyOf(contactPoints);
    for (String contactPoint : contactPoints) {
      if (!contactPoint.matches("[^:\\s]+:\\d{1,5}")) {
        throw new IllegalArgumentException(
            P + "contact-points entries must be host:port, was '" + contactPoint + "'");
      }
    }
  }

  private static void advertisedPort(String key, int value) {
    if (value < 0 || value > 65535) {
      throw new IllegalArgumentException(key + " must be a port up to 65535, or 0 for the port bound, was " + value);
    }
  }

  /**
   * A Zeebe exporter the broker loads besides ours.
   *
   * @param className the class implementing {@code io.camunda.zeebe.exporter.api.Exporter}
   * @param jarPath a jar to load it from, or empty for the node's class path
   * @param args the exporter's arguments
   */
  public record AdditionalExporter(String className, String jarPath, @DefaultValue Map<String, Object> args) {}
}
