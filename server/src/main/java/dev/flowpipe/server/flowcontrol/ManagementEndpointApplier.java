package dev.flowpipe.server.flowcontrol;

import dev.flowpipe.flowcontrol.WriteLimitApplier;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The server's way of applying a write limit: a stock broker's {@code POST /actuator/flowControl}. A Zeebe 8.6 broker
 * applies what it receives to every partition of the cluster, so a limit asked for one partition is one for all:
 * this applier keeps what each partition asks and puts the smallest limit in force (no limit only when no partition
 * asks for one). Sent to the partition's leader first, then to any other broker in the topology.
 */
public final class ManagementEndpointApplier implements WriteLimitApplier {

  private final BrokerMonitoring monitoring;
  private final Supplier<ClusterView> view;
  private final Map<Integer, OptionalInt> asked = new ConcurrentHashMap<>();
  private volatile OptionalInt inForce = OptionalInt.empty();

  public ManagementEndpointApplier(BrokerMonitoring monitoring, Supplier<ClusterView> view) {
    this.monitoring = monitoring;
    this.view = view;
  }

  @Override
  public void apply(int partitionId, OptionalInt limit) {
    asked.put(partitionId, limit);
    OptionalInt cluster = clusterLimit();
    ClusterView current = view.get();
    List<String> failures = new ArrayList<>();
    for (URI url : candidates(partitionId, current)) {
      try {
        monitoring.postWriteLimit(url, cluster);
        inForce = cluster;
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while applying the write limit", e);
      } catch (Exception e) {
        failures.add(url + ": " + e);
      }
    }
    throw new IllegalStateException("no broker took the write limit " + describe(cluster) + " for partition "
        + partitionId + (failures.isEmpty() ? " (no broker known)" : ": " + failures));
  }

  /** The smallest limit any partition asks for, or none. */
  OptionalInt clusterLimit() {
    return asked.values().stream().filter(OptionalInt::isPresent).mapToInt(OptionalInt::getAsInt).min();
  }

  /** The limit last put in force on the cluster. */
  public OptionalInt inForce() {
    return inForce;
  }

  private Set<URI> candidates(int partitionId, ClusterView current) {
    Set<URI> urls = new LinkedHashSet<>();
    Integer leader = current.leaders().get(partitionId);
    if (leader != null) {
      monitoring.url(leader, current).ifPresent(urls::add);
    }
    current.hosts().keySet().stream().sorted().map(id -> monitoring.url(id, current)).flatMap(Optional::stream)
        .forEach(urls::add);
    return urls;
  }

  static String describe(OptionalInt limit) {
    return limit.isPresent() ? limit.getAsInt() + " records/s" : "(none)";
  }
}
