package dev.flowpipe.server.flowcontrol;

import dev.flowpipe.flowcontrol.ControlSettings;
import dev.flowpipe.flowcontrol.LagReading;
import dev.flowpipe.flowcontrol.PartitionFlowControl;
import dev.flowpipe.flowcontrol.PartitionFlowControl.Leadership;
import dev.flowpipe.flowcontrol.PartitionLag;
import dev.flowpipe.flowcontrol.WriteLimitApplier;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flow controller beside a stock cluster. Every {@code resolution}: read the cluster ({@link StockClusterLag}),
 * run each partition's control loop ({@link PartitionFlowControl}, the node's decisions) and put the limits it hands
 * out in force through the brokers' management endpoint ({@link ManagementEndpointApplier}). A partition whose leader
 * moved has its limit applied again at once: the new leader built its limiter from its own configuration.
 *
 * <p>Each partition's apply stands alone: one that fails (no broker answered) is logged, counted
 * ({@code flowpipe.flowcontrol.apply.failures}), shown in the report and offered again at the next tick, while the
 * other partitions go on with theirs.
 */
public final class StockClusterFlowController implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StockClusterFlowController.class);

  private final ClusterLag lag;
  private final WriteLimitApplier applier;
  private final ControlSettings settings;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final Instant started;
  private final Map<Integer, PartitionFlowControl> partitions = new ConcurrentHashMap<>();
  private final Map<Integer, Integer> leaders = new ConcurrentHashMap<>();
  private final Map<Integer, ApplyFailure> failing = new ConcurrentHashMap<>();
  private final AtomicLong applyFailures = new AtomicLong();
  private ScheduledFuture<?> loop;

  /**
   * A partition's limit that is not in force: the last attempt's limit and error, since when and how often it failed.
   */
  public record ApplyFailure(OptionalInt limit, String error, Instant since, int attempts) {

    ApplyFailure again(OptionalInt nextLimit, String nextError) {
      return new ApplyFailure(nextLimit, nextError, since, attempts + 1);
    }
  }

  public StockClusterFlowController(ClusterLag lag, WriteLimitApplier applier, ControlSettings settings,
      Clock clock, ScheduledExecutorService scheduler, MeterRegistry registry) {
    this.lag = lag;
    this.applier = applier;
    this.settings = settings;
    this.clock = clock;
    this.scheduler = scheduler;
    this.started = clock.instant();
    FunctionCounter.builder("flowpipe.flowcontrol.apply.failures", applyFailures, AtomicLong::get)
        .description("attempts to put a partition's write limit in force that no broker took").register(registry);
    Gauge.builder("flowpipe.flowcontrol.apply.pending", failing, Map::size)
        .description("partitions whose write limit is not in force because its last apply failed").register(registry);
  }

  public synchronized void start() {
    loop = scheduler.scheduleWithFixedDelay(this::tickSafely, 0, settings.resolution().toNanos(), TimeUnit.NANOSECONDS);
  }

  private void tickSafely() {
    try {
      tick();
    } catch (RuntimeException e) {
      LOG.warn("flow control tick failed: {}", e.toString());
    }
  }

  /** One round over the cluster's partitions. */
  void tick() {
    ClusterView view = lag.refresh();
    Instant now = clock.instant();
    long nanos = Duration.between(started, now).toNanos();
    boolean warmingUp = nanos < settings.warmUp().toNanos();
    for (int partitionId : view.partitions()) {
      PartitionFlowControl control =
          partitions.computeIfAbsent(partitionId, id -> new PartitionFlowControl(id, settings.window()));
      Integer leader = view.leaders().get(partitionId);
      Optional<LagReading> reading = lag.read(partitionId);
      if (leader == null || reading.isEmpty()) {
        if (leader == null) {
          control.lostLeader();
          leaders.remove(partitionId);
        } // else no answer this tick: the limit in force stays
        continue;
      }
      Integer before = leaders.put(partitionId, leader);
      Leadership leadership = before != null && !before.equals(leader) ? Leadership.NEW_LEADER : Leadership.SAME;
      if (leadership == Leadership.NEW_LEADER) {
        LOG.info("partition {}: leader {} -> {}, its write limit is applied again", partitionId, before, leader);
      }
      Optional<OptionalInt> limit =
          control.tick(reading.get(), leadership, settings, warmingUp, UnaryOperator.identity(), nanos);
      if (limit.isPresent()) {
        apply(control, limit.get(), now, nanos);
      }
    }
  }

  /** Puts one partition's limit in force; a failure is kept for the next tick and does not stop the others. */
  private void apply(PartitionFlowControl control, OptionalInt limit, Instant now, long nanos) {
    int partitionId = control.partitionId();
    String described = ManagementEndpointApplier.describe(limit);
    try {
      applier.apply(partitionId, limit);
    } catch (RuntimeException e) {
      control.notApplied();
      applyFailures.incrementAndGet();
      ApplyFailure failure = failing.merge(partitionId, new ApplyFailure(limit, e.getMessage(), now, 1),
          (before, next) -> before.again(limit, e.getMessage()));
      LOG.warn("partition {}: write limit {} not applied (attempt {} since {}), tried again next tick: {}",
          partitionId, described, failure.attempts(), failure.since(), e.getMessage());
      return;
    }
    control.applied(limit, nanos);
    ApplyFailure recovered = failing.remove(partitionId);
    if (recovered != null) {
      LOG.info("partition {}: write limit {} applied after {} failed attempts since {}", partitionId, described,
          recovered.attempts(), recovered.since());
    } else {
      LOG.info("partition {}: write limit {}", partitionId, described);
    }
  }

  /** The partitions whose limit is not in force because its last apply failed. */
  public Map<Integer, ApplyFailure> failing() {
    return Map.copyOf(failing);
  }

  public ControlSettings settings() {
    return settings;
  }

  /**
   * Whether the controller is within its {@code warm-up} (from the server's start): it engages only at twice the
   * target then, so a store degraded within it is throttled later.
   */
  public boolean warmingUp() {
    return Duration.between(started, clock.instant()).compareTo(settings.warmUp()) < 0;
  }

  /** Per partition: leader, the limit it asks for, throttling, rates and lag. */
  public List<Map<String, Object>> report() {
    List<Map<String, Object>> report = new ArrayList<>();
    partitions.values().stream().sorted(java.util.Comparator.comparingInt(PartitionFlowControl::partitionId))
        .forEach(control -> {
          Map<String, Object> partition = new LinkedHashMap<>();
          PartitionLag current = control.lag();
          partition.put("partitionId", control.partitionId());
          partition.put("leader", leaders.get(control.partitionId()));
          partition.put("throttling", control.throttling());
          partition.put("writeLimit", control.appliedLimit().isPresent() ? control.appliedLimit().getAsInt() : null);
          partition.put("writeRate", current == null ? 0 : round(current.writeRate()));
          partition.put("exportRate", current == null ? 0 : round(current.exportRate()));
          partition.put("lagRecords", current == null ? 0 : current.backlog());
          partition.put("lagMillis", current == null ? 0 : current.age().toMillis());
          ApplyFailure failure = failing.get(control.partitionId());
          partition.put("applyFailure", failure == null ? null : Map.of(
              "writeLimit", ManagementEndpointApplier.describe(failure.limit()), "error", String.valueOf(failure.error()),
              "since", failure.since().toString(), "attempts", failure.attempts()));
          report.add(partition);
        });
    return report;
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }

  @Override
  public synchronized void close() {
    if (loop != null) {
      loop.cancel(false);
    }
  }
}
