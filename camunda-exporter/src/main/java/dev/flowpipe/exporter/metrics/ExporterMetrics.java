package dev.flowpipe.exporter.metrics;

import dev.flowpipe.flowcontrol.ExportProgressBoard;
import dev.flowpipe.writer.batch.BulkFlushPolicy;
import io.camunda.zeebe.protocol.record.ValueType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The exporter's meters, per partition: records exported by value type, bulk sizes, flush durations by reason, export
 * latency (engine timestamp of the oldest record in a flush to durable), records durable, lag (records not yet
 * durable, documents buffered, age of the oldest by engine time), retries, failures and dead letters. The durable
 * position and the lag age also go to the {@link ExportProgressBoard}, where the node's flow controller reads them
 * typed (not by meter name).
 */
public final class ExporterMetrics {

  private final InstantSource clock;

  private final MeterRegistry registry;
  private final Tags tags;
  private final Map<ValueType, Counter> records = new EnumMap<>(ValueType.class);
  private final Map<BulkFlushPolicy.Reason, Timer> flushes = new EnumMap<>(BulkFlushPolicy.Reason.class);
  private final DistributionSummary bulkSize;
  private final Timer exportLatency;
  private final Timer arrivalDelay;
  private final Counter retries;
  private final Counter failures;
  private final Counter deadLetters;
  private final Counter acknowledged;
  private final List<Gauge> lagGauges = new ArrayList<>();
  private final int partitionId;
  private ExportProgressBoard.Progress progress;

  // the timers are histograms (buckets, not client-side quantiles), so quantiles aggregate over partitions and nodes
  private static final Duration SHORTEST = Duration.ofMillis(1);
  private static final Duration LONGEST = Duration.ofMinutes(5);

  public ExporterMetrics(MeterRegistry registry, int partitionId, InstantSource clock) {
    this.clock = clock;
    this.registry = registry;
    this.partitionId = partitionId;
    this.tags = Tags.of("partition", String.valueOf(partitionId));
    bulkSize = DistributionSummary.builder("flowpipe.exporter.bulk.size").description("documents per bulk")
        .baseUnit("documents").tags(tags).register(registry);
    exportLatency = Timer.builder("flowpipe.exporter.export.latency")
        .description("engine timestamp of the oldest record in a flush to the flush being durable")
        .publishPercentileHistogram().minimumExpectedValue(SHORTEST).maximumExpectedValue(LONGEST).tags(tags)
        .register(registry);
    arrivalDelay = Timer.builder("flowpipe.exporter.arrival.delay")
        .description("engine timestamp of the first record of a batch to its arrival in the exporter: the broker's "
            + "share of the export latency")
        .publishPercentileHistogram().minimumExpectedValue(SHORTEST).maximumExpectedValue(LONGEST).tags(tags)
        .register(registry);
    retries = Counter.builder("flowpipe.exporter.retries").description("flush attempts after a failed one")
        .tags(tags).register(registry);
    failures = Counter.builder("flowpipe.exporter.failures").description("flushes that failed")
        .tags(tags).register(registry);
    deadLetters = Counter.builder("flowpipe.exporter.dead.letters")
        .description("documents the store refused for good, kept in the dead-letter index").tags(tags)
        .register(registry);
    acknowledged = Counter.builder("flowpipe.exporter.records.durable")
        .description("records acknowledged to the broker because everything up to them is durable in the store")
        .tags(tags).register(registry);
  }

  /**
   * Lag gauges read from the exporter's own state, until {@link #close()}. A registry hands back a meter already
   * registered under the same name and tags, so without that removal an exporter opened again for the partition (its
   * node leads it again) would publish the closed one's state.
   */
  public void lag(
      Supplier<Number> recordsNotDurable, Supplier<Number> documentsBuffered, Supplier<Number> oldestAgeMs,
      Supplier<Number> acknowledgedPosition) {
    lagGauges.add(Gauge.builder("flowpipe.exporter.position.durable", () -> acknowledgedPosition.get().doubleValue())
        .description("last log position acknowledged: everything up to it is durable in the store").tags(tags)
        .register(registry));
    lagGauges.add(Gauge.builder("flowpipe.exporter.lag.records", () -> recordsNotDurable.get().doubleValue())
        .description("records exported to the buffer but not yet durable").tags(tags).register(registry));
    lagGauges.add(Gauge.builder("flowpipe.exporter.lag.documents", () -> documentsBuffered.get().doubleValue())
        .description("documents buffered").tags(tags).register(registry));
    lagGauges.add(Gauge.builder("flowpipe.exporter.lag.age", () -> oldestAgeMs.get().doubleValue())
        .description("time since the engine wrote the oldest record not yet durable in the store")
        .baseUnit("milliseconds").tags(tags).register(registry));
    progress = new ExportProgressBoard.Progress() {
      @Override
      public long durablePosition() {
        return acknowledgedPosition.get().longValue();
      }

      @Override
      public Duration oldestPendingAge() {
        return Duration.ofMillis(oldestAgeMs.get().longValue());
      }
    };
    ExportProgressBoard.SHARED.post(partitionId, progress);
  }

  /** Removes the lag gauges and the board's progress (counters and timers go on counting across the partition's exporters). */
  public void close() {
    lagGauges.forEach(registry::remove);
    lagGauges.clear();
    if (progress != null) {
      ExportProgressBoard.SHARED.withdraw(partitionId, progress);
      progress = null;
    }
  }

  public void recordExported(ValueType valueType) {
    records.computeIfAbsent(valueType, type -> Counter.builder("flowpipe.exporter.records")
        .description("records handed to the exporter").tags(tags.and("valueType", type.name()))
        .register(registry)).increment();
  }

  public void flushed(BulkFlushPolicy.Reason reason, int documents, Duration took, long oldestRecordTimestamp) {
    flushes.computeIfAbsent(reason, r -> Timer.builder("flowpipe.exporter.flush.duration")
        .description("time to write one bulk").tags(tags.and("reason", r.name().toLowerCase()))
        .publishPercentileHistogram().minimumExpectedValue(SHORTEST).maximumExpectedValue(LONGEST)
        .register(registry)).record(took);
    bulkSize.record(documents);
    if (oldestRecordTimestamp > 0) {
      exportLatency.record(Duration.ofMillis(Math.max(0, clock.millis() - oldestRecordTimestamp)));
    }
  }

  /** A batch's first record reached the exporter; {@code recordTimestamp} is the engine's time of writing it. */
  public void firstRecordArrived(long recordTimestamp) {
    arrivalDelay.record(Duration.ofMillis(Math.max(0, clock.millis() - recordTimestamp)));
  }

  public void acknowledged(long records) {
    acknowledged.increment(records);
  }

  public void retry() {
    retries.increment();
  }

  public void failure() {
    failures.increment();
  }

  public void deadLetter() {
    deadLetters.increment();
  }
}
