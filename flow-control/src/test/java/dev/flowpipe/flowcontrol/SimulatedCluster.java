package dev.flowpipe.flowcontrol;

import dev.flowpipe.flowcontrol.PartitionFlowControl.Leadership;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;

/**
 * Partitions of a stock cluster in closed loop with one {@link PartitionFlowControl} each, tick by tick (250 ms), as
 * the server drives them: one limit for the whole cluster, the smallest any partition asks for (a Zeebe 8.6 broker's
 * {@code /actuator/flowControl} applies what it receives to every partition, see the server's
 * {@code ManagementEndpointApplier}).
 *
 * <p>The store is how our exporter meets a slowed store (the degraded-store test's timelines: each partition's export
 * position moves every ~6 s, longer than the controller's window): each partition's exporter has one bulk in flight,
 * which holds everything written while the one before was in flight, and a bulk takes a fixed round trip plus its size
 * over the partition's share of the store's throughput. The nearer the writes come to that throughput, the larger and
 * rarer the bulks. Partitions start their first bulk at different moments, so their acknowledgements do not coincide.
 *
 * <p>The oracle knows each record's write time and reports the true mean age over a span, across partitions.
 */
final class SimulatedCluster {

  static final long TICK_NANOS = 250_000_000L;

  private final ControlSettings settings;
  private final double offeredPerSecond;
  private final double storePerSecond;
  private final long roundTripNanos;
  private final List<Partition> partitions = new ArrayList<>();
  private OptionalInt inForce = OptionalInt.empty();
  private long nanos;
  private long storeFreeNanos;
  private double ageMillisSum;
  private long ageSamples;
  private long acks;
  private long ackGapNanosSum;

  /**
   * @param offeredPerSecond records per second the clients offer each partition
   * @param storePerSecond records per second the store absorbs, one bulk at a time
   * @param roundTrip what a bulk takes on top of its size
   */
  SimulatedCluster(ControlSettings settings, int partitionCount, double offeredPerSecond, double storePerSecond,
      Duration roundTrip) {
    this.settings = settings;
    this.offeredPerSecond = offeredPerSecond;
    this.storePerSecond = storePerSecond;
    this.roundTripNanos = roundTrip.toNanos();
    for (int i = 0; i < partitionCount; i++) {
      partitions.add(new Partition(i + 1, roundTripNanos * i / partitionCount));
    }
  }

  SimulatedCluster run(double seconds) {
    long ticks = Math.round(seconds * 1e9 / TICK_NANOS);
    for (long i = 0; i < ticks; i++) {
      tick();
    }
    return this;
  }

  /** Forgets what was seen so far: the means cover what runs from now on. */
  SimulatedCluster measureFromHere() {
    ageMillisSum = 0;
    ageSamples = 0;
    acks = 0;
    ackGapNanosSum = 0;
    return this;
  }

  /** The true age of the oldest pending record, averaged over ticks and partitions. */
  double meanAgeMillis() {
    return ageMillisSum / ageSamples;
  }

  /** The mean time between one partition's acknowledgements. */
  double meanAckGapSeconds() {
    return acks == 0 ? Double.NaN : ackGapNanosSum / 1e9 / acks;
  }

  boolean throttling() {
    return partitions.stream().anyMatch(partition -> partition.loop.throttling());
  }

  private void tick() {
    nanos += TICK_NANOS;
    double rate = inForce.isPresent() ? Math.min(offeredPerSecond, inForce.getAsInt()) : offeredPerSecond;
    List<OptionalInt> asks = new ArrayList<>();
    for (Partition partition : partitions) {
      partition.write(rate);
      partition.export();
      Duration age = partition.age();
      ageMillisSum += age.toMillis();
      ageSamples++;
      LagReading reading = new LagReading((long) partition.written, partition.exported, Optional.of(age));
      // as the server's controller: a limit handed out is applied (the cluster's smallest ask goes in force) and
      // recorded as this partition's
      partition.loop.tick(reading, Leadership.SAME, settings, false, UnaryOperator.identity(), nanos)
          .ifPresent(limit -> {
            partition.asked = limit;
            partition.loop.applied(limit, nanos);
          });
      asks.add(partition.asked);
    }
    // the server's applier: the smallest ask, for every partition
    inForce = asks.stream().filter(OptionalInt::isPresent).mapToInt(OptionalInt::getAsInt).min();
  }

  private final class Partition {
    final PartitionFlowControl loop;
    // per tick: the last position written in it and when
    final Deque<long[]> writes = new ArrayDeque<>();
    double written;
    long exported;
    OptionalInt asked = OptionalInt.empty();
    long bulkEnd = -1;
    long bulkDoneNanos;
    long lastAckNanos = -1;

    Partition(int id, long firstBulkNanos) {
      this.loop = new PartitionFlowControl(id, settings.window());
      this.bulkDoneNanos = firstBulkNanos;
    }

    void write(double rate) {
      written += rate * TICK_NANOS / 1e9;
      writes.addLast(new long[] {(long) written, nanos - TICK_NANOS / 2});
    }

    void export() {
      if (nanos < bulkDoneNanos) {
        return;
      }
      if (bulkEnd > exported) {
        exported = bulkEnd;
        if (lastAckNanos >= 0) {
          acks++;
          ackGapNanosSum += bulkDoneNanos - lastAckNanos;
        }
        lastAckNanos = bulkDoneNanos;
      }
      // the next bulk: everything written by now
      long size = (long) written - exported;
      bulkEnd = (long) written;
      // the store takes one bulk at a time, in the order sent
      bulkDoneNanos = Math.max(nanos, storeFreeNanos) + roundTripNanos + (long) (1e9 * size / storePerSecond);
      storeFreeNanos = bulkDoneNanos;
      while (!writes.isEmpty() && writes.peekFirst()[0] <= exported) {
        writes.removeFirst();
      }
    }

    Duration age() {
      return writes.isEmpty() ? Duration.ZERO : Duration.ofNanos(nanos - writes.peekFirst()[1]);
    }
  }
}
