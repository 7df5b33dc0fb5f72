package dev.flowpipe.importer.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.camunda.zeebe.protocol.record.ValueType;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/** The meters of one partition's import. */
public final class ImporterMetrics {

  private final MeterRegistry registry;
  private final Tags tags;
  private final Counter records;
  private final Counter late;
  private final Counter failures;
  private final Counter unreadable;

  public ImporterMetrics(MeterRegistry registry, int partitionId) {
    this.registry = registry;
    this.tags = Tags.of("partition", String.valueOf(partitionId));
    records = Counter.builder("flowpipe.importer.records").description("raw records imported").tags(tags)
        .register(registry);
    late = Counter.builder("flowpipe.importer.records.late")
        .description("raw records that became searchable after records later in the log were imported").tags(tags)
        .register(registry);
    unreadable = Counter.builder("flowpipe.importer.records.unreadable")
        .description("raw records that could not be parsed, put in the dead letters and stepped over").tags(tags)
        .register(registry);
    failures = Counter.builder("flowpipe.importer.failures").description("failed reads and writes").tags(tags)
        .register(registry);
  }

  /**
   * @param lagMillis now minus the engine time of the newest record imported, 0 when caught up, NaN before the first
   * @param caughtUp whether everything searchable in the source is imported
   */
  public void status(Supplier<Double> lagMillis, Supplier<Boolean> caughtUp) {
    // a gauge holds its state object weakly, and these suppliers are held by nothing else: without a strong
    // reference the first garbage collection turns both gauges into NaN (seen in a node under load)
    TimeGauge.builder("flowpipe.importer.lag", lagMillis, TimeUnit.MILLISECONDS, Supplier::get)
        .description("now minus the engine time of the newest record imported (0 when caught up)").tags(tags)
        .strongReference(true).register(registry);
    Gauge.builder("flowpipe.importer.caught.up", caughtUp, c -> c.get() ? 1 : 0)
        .description("1 when everything searchable in the source is imported").tags(tags).strongReference(true)
        .register(registry);
  }

  /** Records of {@code valueType} searchable in the source beyond the durable cursor (as far as the reader knows). */
  public <T> void distance(ValueType valueType, T reader, ToDoubleFunction<T> distance) {
    Gauge.builder("flowpipe.importer.cursor.distance", reader, distance)
        .description("raw records beyond the durable cursor").tags(tags.and("valueType", valueType.name()))
        .register(registry);
  }

  public void imported(long count) {
    records.increment(count);
  }

  public void late(long count) {
    late.increment(count);
  }

  public void unreadable() {
    unreadable.increment();
  }

  public void failure() {
    failures.increment();
  }
}
