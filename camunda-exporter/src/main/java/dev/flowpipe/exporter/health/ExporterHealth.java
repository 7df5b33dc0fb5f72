package dev.flowpipe.exporter.health;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import org.slf4j.Logger;

/**
 * One partition exporter's health: DOWN, with the store's reason, while the store refuses its writes (a whole bulk
 * answered 401/403 or another client error, items answered 401/403) or while the exporter refuses the store's read
 * model as another log's; UP again when a bulk is written. The records wait meanwhile: nothing is acknowledged, so
 * nothing is lost. A change of state or reason is logged once, not at every retry.
 *
 * <p>Seen from outside in two ways: the gauge {@code flowpipe.exporter.health} (1 up, 0 down) in the registry the
 * broker hands the exporter (a stock broker shows it on its own metrics endpoint), and {@link #reportsFor} for the
 * node's {@code /actuator/health}. The broker builds exporters by class name, so there is no way to hand the node an
 * object: the node finds its exporters by the meter registry they report into, which is its own or a partition's
 * registry built on it.
 */
public final class ExporterHealth implements AutoCloseable {

  public enum Status { UP, DOWN }

  /** What one partition's exporter says now; {@code reason} is null when UP. */
  public record Report(int partitionId, Status status, String reason, Instant since) {}

  private static final Set<ExporterHealth> OPEN = new CopyOnWriteArraySet<>();

  private final int partitionId;
  private final MeterRegistry registry;
  private final InstantSource clock;
  private final Logger log;
  private final Gauge gauge;
  private volatile Report report;

  private ExporterHealth(int partitionId, MeterRegistry registry, InstantSource clock, Logger log) {
    this.partitionId = partitionId;
    this.registry = registry;
    this.clock = clock;
    this.log = log;
    this.report = new Report(partitionId, Status.UP, null, clock.instant());
    this.gauge = Gauge.builder("flowpipe.exporter.health", this, health -> health.report.status() == Status.UP ? 1 : 0)
        .description("1 while the exporter can write to the search store, 0 while the store refuses its writes or"
            + " the exporter refuses the store's read model as another log's")
        .tag("partition", String.valueOf(partitionId))
        .register(registry);
  }

  /** The health of the exporter just opened for {@code partitionId}, UP until told otherwise. */
  public static ExporterHealth open(int partitionId, MeterRegistry registry, InstantSource clock, Logger log) {
    ExporterHealth health = new ExporterHealth(partitionId, registry, clock, log);
    OPEN.add(health);
    return health;
  }

  /** The reports of the open exporters whose meters reach {@code registry} (the node's), by partition. */
  public static List<Report> reportsFor(MeterRegistry registry) {
    return OPEN.stream()
        .filter(health -> reaches(health.registry, registry))
        .map(health -> health.report)
        .sorted(java.util.Comparator.comparingInt(Report::partitionId))
        .toList();
  }

  private static boolean reaches(MeterRegistry from, MeterRegistry to) {
    if (from == to) {
      return true;
    }
    return from instanceof CompositeMeterRegistry composite
        && composite.getRegistries().stream().anyMatch(member -> reaches(member, to));
  }

  public Report report() {
    return report;
  }

  /** A bulk was written: UP (logged when it was DOWN). */
  public void writing() {
    Report was = report;
    if (was.status() == Status.DOWN) {
      report = new Report(partitionId, Status.UP, null, clock.instant());
      log.info("partition {}: the search store takes the exporter's writes again (it was down since {}: {})",
          partitionId, was.since(), was.reason());
    }
  }

  /** DOWN for {@code reason}; logged when the exporter was UP or the reason is new. */
  public void down(String reason) {
    Report was = report;
    if (was.status() == Status.DOWN && Objects.equals(was.reason(), reason)) {
      return;
    }
    report = new Report(partitionId, Status.DOWN, reason, clock.instant());
    log.error("partition {}: {}; records wait unacknowledged and are written once this is resolved", partitionId,
        reason);
  }

  @Override
  public void close() {
    OPEN.remove(this);
    registry.remove(gauge);
  }
}
