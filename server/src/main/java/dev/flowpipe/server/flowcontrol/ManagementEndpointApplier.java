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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's way of applying a write limit: a stock broker's {@code POST /actuator/flowControl}. A Zeebe 8.6 broker
 * applies what it receives to every partition of the cluster, so a limit asked for one partition is one for all:
 * this applier keeps what each partition asks and puts the smallest limit in force (no limit only when no partition
 * asks for one). Sent to the partition's leader first, then to any other broker in the topology.
 *
 * <p>Each POST makes every partition's member build a new write rate limiter, which starts without stored permits: for
 * its first moments commands arriving together are refused although the load is far below the limit. So a limit is
 * not posted again for a partition whose leader holds it (the same leader as when it was put in force). The broker sends it to every member of every partition and answers an error
 * when any member does not take it, such as a killed broker still in its topology, while the live ones did (seen: a
 * 500 for 5-8 s after a SIGKILL, each attempt's limit in force on every live leader). After such an answer, and before
 * posting the same limit again, the brokers' {@code GET /actuator/flowControl} is asked: a limit every partition's
 * leader holds is in force, and posting it again each tick (two brokers tried per tick) rebuilt every live limiter
 * some 20-36 times during a failover, which refused a command under a limit 20 times the load.
 */
public final class ManagementEndpointApplier implements WriteLimitApplier {

  private static final Logger LOG = LoggerFactory.getLogger(ManagementEndpointApplier.class);

  private final BrokerMonitoring monitoring;
  private final Supplier<ClusterView> view;
  private final Map<Integer, OptionalInt> asked = new ConcurrentHashMap<>();
  private volatile OptionalInt inForce = OptionalInt.empty();
  // the cluster limit last posted with an error answer: it may be in force all the same
  private Optional<OptionalInt> unconfirmed = Optional.empty();
  // each partition's leader when the limit in force was put there: a leader since then built its own limiter
  private Map<Integer, Integer> leadersHolding = Map.of();

  public ManagementEndpointApplier(BrokerMonitoring monitoring, Supplier<ClusterView> view) {
    this.monitoring = monitoring;
    this.view = view;
  }

  @Override
  public void apply(int partitionId, OptionalInt limit) {
    asked.put(partitionId, limit);
    OptionalInt cluster = clusterLimit();
    ClusterView current = view.get();
    if (cluster.equals(inForce) && current.leaders().get(partitionId) != null
        && current.leaders().get(partitionId).equals(leadersHolding.get(partitionId))) {
      return; // the broadcast that put it in force reached this partition's leader
    }
    List<String> failures = new ArrayList<>();
    for (URI url : candidates(partitionId, current)) {
      if (unconfirmed.equals(Optional.of(cluster)) && heldByEveryLeader(url, cluster, current)) {
        confirmed(cluster, url, current);
        return;
      }
      try {
        monitoring.postWriteLimit(url, cluster);
        unconfirmed = Optional.empty();
        inForce = cluster;
        leadersHolding = current.leaders();
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while applying the write limit", e);
      } catch (Exception e) {
        failures.add(url + ": " + e);
        unconfirmed = Optional.of(cluster);
        if (heldByEveryLeader(url, cluster, current)) {
          confirmed(cluster, url, current);
          return;
        }
      }
    }
    throw new IllegalStateException("no broker took the write limit " + describe(cluster) + " for partition "
        + partitionId + (failures.isEmpty() ? " (no broker known)" : ": " + failures));
  }

  /**
   * Whether every partition of the topology has {@code cluster} in force on its leader, by the broker's
   * {@code GET /actuator/flowControl}; no answer is a no.
   */
  private boolean heldByEveryLeader(URI url, OptionalInt cluster, ClusterView current) {
    try {
      Map<Integer, OptionalInt> held = monitoring.writeLimits(url);
      return !current.partitions().isEmpty()
          && current.partitions().stream().allMatch(partition -> cluster.equals(held.get(partition)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception e) {
      LOG.debug("no write limits from {}: {}", url, e.toString());
      return false;
    }
  }

  private void confirmed(OptionalInt cluster, URI url, ClusterView current) {
    unconfirmed = Optional.empty();
    inForce = cluster;
    leadersHolding = current.leaders();
    LOG.info("write limit {} in force on every partition's leader (GET {}/actuator/flowControl) after a POST answered"
        + " with an error: not posted again", describe(cluster), url);
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
