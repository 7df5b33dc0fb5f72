package dev.flowpipe.node.flowcontrol;

import io.atomix.raft.RaftServer.Role;
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
 * Measures one partition's lag: positions from the partition's stream processor (last written) and from our
 * exporter's acknowledged-position gauge (or the exporter director's lowest position without our exporter), and the
 * age of the oldest record not yet durable from the exporter's {@code flowpipe.exporter.lag.age} gauge. Without that
 * gauge (another exporter) the age is estimated as backlog over export rate. Rates are the {@link LagWindow}'s.
 * Notices when this node takes over the partition's leadership (a new stream processor): the broker then builds a
 * new write limiter from its configuration, and positions start anew here. Leadership is the partition's Raft role:
 * a follower runs a stream processor too (replaying, to take over fast), so having one says nothing.
 */
final class LagProbe {

  private static final Logger LOG = LoggerFactory.getLogger(LagProbe.class);
  private static final long TIMEOUT_MILLIS = 1_000;

  private final ZeebePartition partition;
  private final MeterRegistry registry;
  private final double minRate;
  private StreamProcessor leading;
  private boolean tookOver;

  LagProbe(ZeebePartition partition, MeterRegistry registry, double minRate) {
    this.partition = partition;
    this.registry = registry;
    this.minRate = minRate;
  }

  /**
   * The partition's lag now, or empty when this node does not lead it or it did not answer in time. {@code exportRate}: the window's, for estimating the age without our exporter's gauge.
   */
  Optional<LagSample> sample(double exportRate) {
    try {
      Role role = partition.getCurrentRole().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      Optional<StreamProcessor> processor = role == Role.LEADER
          ? partition.getStreamProcessor().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
          : Optional.empty();
      if (processor.isEmpty()) {
        leading = null;
        return Optional.empty();
      }
      tookOver = processor.get() != leading;
      leading = processor.get();
      long written = processor.get().getLastWrittenPositionAsync().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      long exported = Math.min(written, exportedPosition(written));
      return Optional.of(new LagSample(System.nanoTime(), written, exported, age(written - exported, exportRate)));
    } catch (Exception e) { // the futures throw timeouts undeclared
      // a partition in transition (role change, closing) answers later; the controller keeps its last limit
      LOG.debug("partition {} gave no lag sample", partition.getPartitionId(), e);
      return Optional.empty();
    }
  }

  /** Whether this node led the partition at the last sample that got an answer. */
  boolean leads() {
    return leading != null;
  }

  /** Whether the last sample was the first since this node took over the partition's leadership. */
  boolean tookOver() {
    return tookOver;
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

  private Duration age(long backlog, double exportRate) {
    Gauge age = gauge("flowpipe.exporter.lag.age");
    return age != null
        ? Duration.ofMillis((long) age.value())
        : Duration.ofMillis((long) (1000.0 * Math.max(0, backlog) / Math.max(minRate, exportRate)));
  }

  private Gauge gauge(String name) {
    return registry.find(name).tag("partition", String.valueOf(partition.getPartitionId())).gauge();
  }
}
