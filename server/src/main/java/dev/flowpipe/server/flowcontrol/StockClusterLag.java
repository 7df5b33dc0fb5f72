package dev.flowpipe.server.flowcontrol;

import dev.flowpipe.flowcontrol.LagReading;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stock cluster's exporter lag, refreshed once per tick: each partition's leader from the gateway's topology, the
 * leader's last appended position and its position for our exporter from its monitoring port, and our exporter's
 * export position mark in the store.
 * The age of the oldest record not yet durable is read from when the leaders' metrics showed the log reach its
 * positions ({@link AppendTimes}); until two ticks have been seen the controller estimates it.
 */
public final class StockClusterLag implements ClusterLag {

  private static final Logger LOG = LoggerFactory.getLogger(StockClusterLag.class);
  /** How long append times are kept: an older record's time is extrapolated at the rate they show. */
  static final Duration AGE_HORIZON = Duration.ofMinutes(2);

  private final Supplier<ClusterView> topology;
  private final BrokerMonitoring monitoring;
  private final StoreExportMarks marks;
  private final Clock clock;
  private final AppendTimes appendTimes = new AppendTimes(AGE_HORIZON);
  private volatile ClusterView view = ClusterView.EMPTY;
  private volatile Map<Integer, LagReading> readings = Map.of();

  public StockClusterLag(Supplier<ClusterView> topology, BrokerMonitoring monitoring, StoreExportMarks marks,
      Clock clock) {
    this.topology = topology;
    this.monitoring = monitoring;
    this.marks = marks;
    this.clock = clock;
  }

  private long nanos() {
    Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  /**
   * Reads the cluster once. A partition whose leader, leader's metrics or mark cannot be read now is left out (its
   * limit stays); a store that cannot be read leaves all out.
   */
  @Override
  public ClusterView refresh() {
    ClusterView current;
    try {
      current = topology.get();
    } catch (RuntimeException e) {
      LOG.debug("no topology from the gateway: {}", e.toString());
      readings = Map.of();
      return view;
    }
    Map<Integer, BrokerMonitoring.LogPositions> byLeader = readLeaders(current);
    long readAt = nanos();
    Map<Integer, Long> written = new HashMap<>();
    Map<Integer, Long> keptByLeader = new HashMap<>();
    current.leaders().forEach((partition, leader) -> {
      BrokerMonitoring.LogPositions positions = byLeader.getOrDefault(leader, BrokerMonitoring.LogPositions.NONE);
      Long position = positions.appended().get(partition);
      if (position != null) {
        written.put(partition, position);
        appendTimes.reached(partition, position, readAt);
        Long kept = positions.exported().get(partition);
        if (kept != null) {
          keptByLeader.put(partition, kept);
        }
      }
    });
    Map<Integer, LagReading> next = new HashMap<>();
    try {
      Map<Integer, Long> marked = marks.positions(written.keySet());
      // durable: the store's mark, or the leader's position for our exporter where that is further; the latter moves
      // past the records our exporter's filter skips (commands, other value types), which no bulk marks, so a quiet
      // log whose last records are of that kind shows no backlog. No mark yet: nothing of the partition is durable.
      written.forEach((partition, position) -> {
        long durable = Math.max(marked.getOrDefault(partition, -1L), keptByLeader.getOrDefault(partition, -1L));
        next.put(partition, new LagReading(position, durable,
            appendTimes.oldestPendingAge(partition, durable, readAt)));
      });
    } catch (RuntimeException e) {
      LOG.debug("no export position marks from the store: {}", e.toString());
    }
    view = current;
    readings = Map.copyOf(next);
    return current;
  }

  /**
   * Every leader's positions, asked all at once: one slow broker delays a tick by its own answer only, not by the sum
   * of all (a tick's age estimate is only as fine as the time between ticks).
   */
  private Map<Integer, BrokerMonitoring.LogPositions> readLeaders(ClusterView current) {
    Map<Integer, java.util.concurrent.Future<BrokerMonitoring.LogPositions>> asked = new HashMap<>();
    try (var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      current.leaders().values().stream().distinct()
          .forEach(leader -> asked.put(leader, threads.submit(() -> positions(leader, current))));
    } // waits for every answer (each bounded by the request timeout)
    Map<Integer, BrokerMonitoring.LogPositions> positions = new HashMap<>();
    asked.forEach((leader, answer) -> positions.put(leader, answer.resultNow()));
    return positions;
  }

  private BrokerMonitoring.LogPositions positions(int nodeId, ClusterView current) {
    Optional<URI> url = monitoring.url(nodeId, current);
    if (url.isEmpty()) {
      return BrokerMonitoring.LogPositions.NONE;
    }
    try {
      return monitoring.logPositions(url.get());
    } catch (Exception e) { // IO, a timeout, an interrupted tick: the partitions it leads are unknown this tick
      LOG.debug("no metrics from broker {} at {}: {}", nodeId, url.get(), e.toString());
      return BrokerMonitoring.LogPositions.NONE;
    }
  }

  @Override
  public Optional<LagReading> read(int partitionId) {
    return Optional.ofNullable(readings.get(partitionId));
  }

  /** The cluster as the last refresh saw it. */
  public ClusterView view() {
    return view;
  }
}
