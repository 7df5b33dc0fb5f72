package dev.flowpipe.node.flowcontrol;

import io.camunda.zeebe.broker.exporter.stream.ExporterDirector;
import io.camunda.zeebe.broker.system.partitions.ZeebePartition;
import io.camunda.zeebe.stream.impl.StreamProcessor;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures one partition's lag: positions from the partition's stream processor (last written) and exporter
 * director (lowest acknowledged), rates from their change over time (smoothed with a two-second time constant, since a
 * slow store acknowledges in bursts), and
 * the age of the oldest record not yet durable from the exporter's {@code flowpipe.exporter.lag.age} gauge. Without
 * that gauge (another exporter) the age is estimated as backlog over export rate.
 */
final class LagProbe {

  private static final Logger LOG = LoggerFactory.getLogger(LagProbe.class);
  private static final long TIMEOUT_MILLIS = 1_000;
  private static final double TIME_CONSTANT_SECONDS = 2.0;

  private final ZeebePartition partition;
  private final MeterRegistry registry;
  private final double minRate;
  private long lastNanos = -1;
  private long lastWritten;
  private long lastExported;
  private double writeRate;
  private double exportRate;

  LagProbe(ZeebePartition partition, MeterRegistry registry, double minRate) {
    this.partition = partition;
    this.registry = registry;
    this.minRate = minRate;
  }

  /** The partition's lag now, or empty when it is not the leader (no stream processor) or did not answer in time. */
  Optional<PartitionLag> sample() {
    try {
      Optional<StreamProcessor> processor = partition.getStreamProcessor().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      if (processor.isEmpty()) {
        return Optional.empty();
      }
      long written = processor.get().getLastWrittenPositionAsync().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      return Optional.of(update(System.nanoTime(), written, Math.min(written, exportedPosition(written))));
    } catch (Exception e) { // the futures throw timeouts undeclared
      // a partition in transition (role change, closing) answers later; the controller keeps its last limit
      LOG.debug("partition {} gave no lag sample", partition.getPartitionId(), e);
      return Optional.empty();
    }
  }

  /**
   * Our exporter publishes its acknowledged position as a gauge, readable while it is busy writing; the exporter
   * director's lowest position (over all exporters) is asked only without it, since the director's actor is the one
   * that waits on a slow store.
   */
  private long exportedPosition(long written) throws Exception {
    Gauge durable = gauge("flowpipe.exporter.position.durable");
    if (durable != null) {
      return (long) durable.value();
    }
    Optional<ExporterDirector> director = partition.getExporterDirector().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    if (director.isEmpty()) {
      return written;
    }
    long lowest = director.get().getLowestPosition().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    // no exporter (or none that has acknowledged anything yet): nothing waits on a store
    return lowest < 0 ? written : lowest;
  }

  private Gauge gauge(String name) {
    return registry.find(name).tag("partition", String.valueOf(partition.getPartitionId())).gauge();
  }

  private PartitionLag update(long now, long written, long exported) {
    if (lastNanos >= 0 && now > lastNanos) {
      double seconds = (now - lastNanos) / 1e9;
      double weight = 1 - Math.exp(-seconds / TIME_CONSTANT_SECONDS);
      writeRate += weight * (Math.max(0, written - lastWritten) / seconds - writeRate);
      exportRate += weight * (Math.max(0, exported - lastExported) / seconds - exportRate);
    }
    lastNanos = now;
    lastWritten = written;
    lastExported = exported;
    long backlog = Math.max(0, written - exported);
    Gauge age = gauge("flowpipe.exporter.lag.age");
    Duration oldest = age != null
        ? Duration.ofMillis((long) age.value())
        : Duration.ofMillis((long) (1000.0 * backlog / Math.max(minRate, exportRate)));
    return new PartitionLag(partition.getPartitionId(), written, exported, oldest, exportRate, writeRate);
  }
}
