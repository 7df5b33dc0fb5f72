package dev.flowpipe.node.flowcontrol;

import dev.flowpipe.flowcontrol.ExportProgressBoard;
import dev.flowpipe.flowcontrol.LagReading;
import io.atomix.raft.RaftServer.Role;
import io.camunda.zeebe.broker.exporter.stream.ExporterDirector;
import io.camunda.zeebe.broker.system.partitions.ZeebePartition;
import io.camunda.zeebe.stream.impl.StreamProcessor;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one partition's lag in the node: the last written position from the partition's stream processor, the durable
 * position and the age of the oldest record not yet durable from our exporter's {@link ExportProgressBoard} (typed:
 * no meter name decides whether flow control works), or without our exporter the exporter director's lowest position
 * (the age is then estimated by the controller). Notices when this node takes over the partition's leadership (a new
 * stream processor): the broker then builds a new write limiter from its configuration, and positions start anew
 * here. Leadership is the partition's Raft role: a follower runs a stream processor too (replaying, to take over
 * fast), so having one says nothing.
 */
final class LagProbe {

  private static final Logger LOG = LoggerFactory.getLogger(LagProbe.class);
  private static final long TIMEOUT_MILLIS = 1_000;

  private final ZeebePartition partition;
  private final ExportProgressBoard board;
  private StreamProcessor leading;
  private boolean tookOver;

  LagProbe(ZeebePartition partition, ExportProgressBoard board) {
    this.partition = partition;
    this.board = board;
  }

  /** The partition's lag now, or empty when this node does not lead it or it did not answer in time. */
  Optional<LagReading> read() {
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
      var progress = board.progress(partition.getPartitionId());
      if (progress.isPresent()) {
        return Optional.of(new LagReading(written, progress.get().durablePosition(),
            Optional.of(progress.get().oldestPendingAge())));
      }
      return Optional.of(new LagReading(written, lowestExported(written), Optional.empty()));
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
   * Without our exporter: the exporter director's lowest position over all exporters. Asked only then, since the
   * director's actor is the one that waits on a slow store, while our exporter's board is readable at any time.
   */
  private long lowestExported(long written) throws Exception {
    Optional<ExporterDirector> director = partition.getExporterDirector().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    if (director.isEmpty()) {
      return written;
    }
    long lowest = director.get().getLowestPosition().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    // no exporter (or none that has acknowledged anything yet): nothing waits on a store
    return lowest < 0 ? written : lowest;
  }
}
