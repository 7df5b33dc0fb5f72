package dev.flowpipe.node.retention;

import dev.flowpipe.schema.retention.RetentionStatus;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the retention sweep every check interval on its scheduler, and shows what it found: gauges of the oldest data
 * held (its age), the bytes held and the time to the next deletion, and the last outcome for health. A failed sweep
 * (store unreachable) is logged and tried again at the next interval; nothing it did is lost, since the sweep resumes
 * a marked deletion.
 */
public final class RetentionService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RetentionService.class);

  private final Supplier<RetentionStatus> sweep;
  private final ScheduledExecutorService scheduler;
  private final Duration interval;
  private final Clock clock;
  private volatile RetentionStatus last;
  private volatile Instant lastRun;
  private volatile RuntimeException lastFailure;

  public RetentionService(Supplier<RetentionStatus> sweep, ScheduledExecutorService scheduler, Duration interval,
      Clock clock, MeterRegistry registry) {
    this.sweep = sweep;
    this.scheduler = scheduler;
    this.interval = interval;
    this.clock = clock;
    Gauge.builder("flowpipe.retention.oldest.data.age", this, s -> s.secondsSince(RetentionStatus::oldestDataHeld))
        .description("age of the oldest read-model data held").baseUnit("seconds").register(registry);
    Gauge.builder("flowpipe.retention.bytes.held", this, s -> s.last == null ? Double.NaN : s.last.bytesHeld())
        .description("store size of the read model's indices").baseUnit("bytes").register(registry);
    Gauge.builder("flowpipe.retention.next.deletion", this, s -> -s.secondsSince(RetentionStatus::nextDeletion))
        .description("time until the oldest period held is due for deletion; negative: due, but kept by a still-running "
            + "instance or an exporter behind").baseUnit("seconds").register(registry);
  }

  public void start() {
    scheduler.scheduleWithFixedDelay(this::runOnce, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One sweep; a failure is kept for health and the next interval tries again. */
  public void runOnce() {
    try {
      last = sweep.get();
      lastFailure = null;
      if (!last.deleted().isEmpty() || last.instancesPruned() > 0) {
        LOG.info("retention: deleted {} period(s), pruned {} instance(s), {} bytes held",
            last.deleted().size(), last.instancesPruned(), last.bytesHeld());
      }
    } catch (RuntimeException e) {
      lastFailure = e;
      LOG.warn("retention sweep failed, tried again in {}: {}", interval, e.toString());
    } finally {
      lastRun = clock.instant();
    }
  }

  public Optional<RetentionStatus> last() {
    return Optional.ofNullable(last);
  }

  public Optional<Instant> lastRun() {
    return Optional.ofNullable(lastRun);
  }

  public Optional<RuntimeException> lastFailure() {
    return Optional.ofNullable(lastFailure);
  }

  private double secondsSince(java.util.function.Function<RetentionStatus, Optional<Instant>> field) {
    RetentionStatus status = last;
    return status == null ? Double.NaN : field.apply(status)
        .map(at -> Duration.between(at, clock.instant()).toMillis() / 1000.0).orElse(Double.NaN);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
