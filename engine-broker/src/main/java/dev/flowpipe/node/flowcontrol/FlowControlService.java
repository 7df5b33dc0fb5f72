package dev.flowpipe.node.flowcontrol;

import dev.flowpipe.flowcontrol.ControlSettings;
import dev.flowpipe.flowcontrol.ExportProgressBoard;
import dev.flowpipe.flowcontrol.LagReading;
import dev.flowpipe.flowcontrol.PartitionFlowControl;
import dev.flowpipe.flowcontrol.PartitionFlowControl.Leadership;
import dev.flowpipe.flowcontrol.WriteLimitApplier;
import dev.flowpipe.node.broker.EmbeddedBroker;
import dev.flowpipe.node.config.FlowControlProperties;
import io.camunda.zeebe.broker.system.partitions.ZeebePartition;
import io.camunda.zeebe.logstreams.impl.flowcontrol.FlowControlLimits;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.convert.DurationStyle;

/**
 * Every {@code resolution}, for each partition this broker leads: read the lag ({@link LagProbe}) and run the
 * partition's control loop ({@link PartitionFlowControl}: the same {@code WriteRateController} as the flowpipe
 * server's), and put the limit it hands out in force through the partition's flow-control admin access
 * ({@link PartitionAdminApplier}). While the store's disk is above its high watermark ({@link DiskPressure}) the limit
 * is held at {@code min-write-rate}. Publishes what it sees as meters and as the {@code flowControl} actuator
 * endpoint's report; settings change at runtime through {@link #update}.
 */
public final class FlowControlService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(FlowControlService.class);
  private static final String FLOW_CONTROL_OUTCOME = "zeebe_flow_control_outcome_total";

  private final EmbeddedBroker broker;
  private final MeterRegistry registry;
  private final AtomicReference<FlowControlProperties> settings;
  private final Map<Integer, PartitionControl> partitions = new ConcurrentHashMap<>();
  private final ScheduledExecutorService executor;
  private final DiskPressure disk;
  private final WriteLimitApplier applier;
  private volatile boolean diskHold;
  private ScheduledFuture<?> loop;
  private final Clock clock;
  private final long startNanos;

  /** One partition's probe and control loop; the probe is used by the control thread only. */
  record PartitionControl(LagProbe probe, PartitionFlowControl loop) {}

  /** @param clock the node's clock: the warm-up and the control loops' times are read from it */
  public FlowControlService(
      EmbeddedBroker broker, MeterRegistry registry, FlowControlProperties initial, DiskPressure disk, Clock clock) {
    this.broker = broker;
    this.clock = clock;
    this.startNanos = nanos();
    this.disk = disk;
    Gauge.builder("flowpipe.flowcontrol.disk.hold", this, service -> service.diskHold ? 1 : 0)
        .description("1 while the store's disk is above its high watermark and writes are held at min-write-rate")
        .register(registry);
    this.registry = registry;
    this.settings = new AtomicReference<>(initial);
    this.applier = new PartitionAdminApplier(broker);
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "flow-control");
      thread.setDaemon(true);
      return thread;
    });
  }

  public synchronized void start() {
    schedule(settings.get().resolution());
    LOG.info("flow control: {}", describe(settings.get()));
  }

  private void schedule(Duration resolution) {
    if (loop != null) {
      loop.cancel(false);
    }
    loop = executor.scheduleWithFixedDelay(this::tickSafely, 0, resolution.toNanos(), TimeUnit.NANOSECONDS);
  }

  private long nanos() {
    Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  /** Replaces the settings (already validated); the next tick applies them. */
  public synchronized FlowControlProperties update(FlowControlProperties next) {
    FlowControlProperties previous = settings.getAndSet(next);
    if (!previous.resolution().equals(next.resolution())) {
      schedule(next.resolution());
    }
    LOG.info("flow control changed at runtime: {}", describe(next));
    return next;
  }

  public FlowControlProperties settings() {
    return settings.get();
  }

  /** Whether writes are held at {@code min-write-rate} because the store's disk is above its high watermark. */
  public boolean diskHold() {
    return diskHold;
  }

  private void tickSafely() {
    try {
      tick();
    } catch (Exception e) { // the broker's futures can throw checked exceptions (timeouts) undeclared
      LOG.warn("flow control tick failed: {}", e.toString());
    }
  }

  void tick() {
    FlowControlProperties current = settings.get();
    ControlSettings control = current.control();
    long now = nanos();
    boolean warmingUp = now - startNanos < current.warmUp().toNanos();
    boolean holdForDisk = disk.aboveHighWatermark();
    if (holdForDisk != diskHold) {
      LOG.info(holdForDisk ? "the store's disk is above its high watermark: writes held at {} records/s"
          : "the store's disk is below its high watermark again: the write limit follows the lag", current.minWriteRate());
      diskHold = holdForDisk;
    }
    for (ZeebePartition partition : broker.partitions()) {
      PartitionControl partitionControl =
          partitions.computeIfAbsent(partition.getPartitionId(), id -> register(partition));
      PartitionFlowControl loop = partitionControl.loop();
      Optional<LagReading> reading = partitionControl.probe().read();
      if (reading.isEmpty()) {
        if (!partitionControl.probe().leads()) {
          loop.lostLeader();
        } // else no answer in time: the last limit stays
        continue;
      }
      Optional<OptionalInt> limit = loop.tick(reading.get(),
          partitionControl.probe().tookOver() ? Leadership.TAKEN_OVER : Leadership.SAME, control, warmingUp,
          controlled -> DiskPressure.hold(controlled, holdForDisk, current.minWriteRate()), now);
      if (limit.isPresent()) {
        applier.apply(partition.getPartitionId(), limit.get());
        loop.applied(limit.get(), now);
      }
    }
  }

  private PartitionControl register(ZeebePartition partition) {
    int id = partition.getPartitionId();
    PartitionControl control = new PartitionControl(new LagProbe(partition, ExportProgressBoard.SHARED),
        new PartitionFlowControl(id, settings.get().window()));
    Tags tags = Tags.of("partition", String.valueOf(id));
    Gauge.builder("flowpipe.flowcontrol.write.limit", control, c -> c.loop().appliedLimit().orElse(0))
        .description("write rate limit in records per second (0: none)").tags(tags).register(registry);
    Gauge.builder("flowpipe.flowcontrol.write.rate", control, c -> c.loop().lag() == null ? 0 : c.loop().lag().writeRate())
        .description("records written to the log per second").tags(tags).register(registry);
    Gauge.builder("flowpipe.flowcontrol.export.rate", control, c -> c.loop().lag() == null ? 0 : c.loop().lag().exportRate())
        .description("records becoming durable in the store per second").tags(tags).register(registry);
    Gauge.builder("flowpipe.flowcontrol.lag.records", control, c -> c.loop().lag() == null ? 0 : c.loop().lag().backlog())
        .description("records written but not yet durable in the store").tags(tags).register(registry);
    Gauge.builder("flowpipe.flowcontrol.lag.time", control, c -> c.loop().lag() == null ? 0 : c.loop().lag().age().toMillis())
        .description("age of the oldest record not yet durable in the store").baseUnit("milliseconds").tags(tags)
        .register(registry);
    FunctionCounter.builder("flowpipe.flowcontrol.rejected", id, FlowControlService::rejectedByWriteLimit)
        .description("commands the broker rejected because of the write rate limit").tags(tags).register(registry);
    return control;
  }

  /**
   * The broker counts flow-control outcomes in the Prometheus client's process-wide registry; this reads the client
   * commands rejected by the write limit (two nodes in one JVM would share the count).
   */
  static double rejectedByWriteLimit(int partitionId) {
    double total = 0;
    for (var samples : java.util.Collections.list(CollectorRegistry.defaultRegistry.metricFamilySamples())) {
      for (Collector.MetricFamilySamples.Sample sample : samples.samples) {
        if (!sample.name.equals(FLOW_CONTROL_OUTCOME)) {
          continue;
        }
        String partition = label(sample, "partition");
        // only commands from clients are rejected; the engine's own writes wait for the limiter instead
        if (String.valueOf(partitionId).equals(partition) && "userCommand".equals(label(sample, "context"))
            && "writeRateLimitExhausted".equals(label(sample, "outcome"))) {
          total += sample.value;
        }
      }
    }
    return total;
  }

  private static String label(Collector.MetricFamilySamples.Sample sample, String name) {
    int i = sample.labelNames.indexOf(name);
    return i < 0 ? null : sample.labelValues.get(i);
  }

  /** Per partition: request limiter, write limit, rates, lag. */
  public List<PartitionReport> report() {
    List<PartitionReport> reports = new ArrayList<>();
    for (ZeebePartition partition : broker.partitions()) {
      PartitionControl control = partitions.get(partition.getPartitionId());
      FlowControlLimits limits = null;
      try {
        limits = partition.getAdminAccess().getFlowControlConfiguration().join(1, TimeUnit.SECONDS);
      } catch (RuntimeException e) {
        // reported as unknown
      }
      boolean leading = control != null && control.loop().leading();
      reports.add(PartitionReport.of(partition.getPartitionId(), leading, limits, leading ? control.loop().lag() : null,
          leading && control.loop().throttling(), rejectedByWriteLimit(partition.getPartitionId())));
    }
    return reports;
  }

  static String describe(FlowControlProperties s) {
    String target = s.mode() == ControlSettings.Mode.TIME
        ? "export lag at most " + DurationStyle.SIMPLE.print(s.maxExportLag())
        : "backlog at most " + s.acceptableBacklog() + " records";
    return (s.enabled() ? "controller on (" + target + ", sustained over " + DurationStyle.SIMPLE.print(s.window())
        + " while the backlog grows, never below " + s.minWriteRate() + " records/s, every "
        + DurationStyle.SIMPLE.print(s.resolution()) + ", warm-up " + DurationStyle.SIMPLE.print(s.warmUp()) + ")"
        : "controller off")
        + (s.writeLimit() > 0 ? ", static write limit " + s.writeLimit() + " records/s" : "");
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
