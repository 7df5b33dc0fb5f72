package dev.flowpipe.node.broker;

import dev.flowpipe.webapp.operations.WrittenPositions;
import io.atomix.raft.RaftServer.Role;
import io.camunda.zeebe.broker.system.partitions.ZeebePartition;
import io.camunda.zeebe.stream.impl.StreamProcessor;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * The last written log position of the partitions this node leads, from the partition's stream processor: after a
 * command's answer, every record it caused is at or below it. A partition led elsewhere (in a cluster) is unknown here.
 */
public final class LeaderLogPositions implements WrittenPositions {

  private static final long TIMEOUT_MILLIS = 1_000;

  private final EmbeddedBroker broker;

  public LeaderLogPositions(EmbeddedBroker broker) {
    this.broker = broker;
  }

  @Override
  public OptionalLong lastWritten(int partitionId) {
    for (ZeebePartition partition : broker.partitions()) {
      if (partition.getPartitionId() == partitionId) {
        return lastWritten(partition);
      }
    }
    return OptionalLong.empty();
  }

  private static OptionalLong lastWritten(ZeebePartition partition) {
    try {
      if (partition.getCurrentRole().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS) != Role.LEADER) {
        return OptionalLong.empty();
      }
      Optional<StreamProcessor> processor =
          partition.getStreamProcessor().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      return processor.isEmpty() ? OptionalLong.empty()
          : OptionalLong.of(processor.get().getLastWrittenPositionAsync().join(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS));
    } catch (Exception e) { // the actor futures throw timeouts undeclared; a partition in transition is unknown
      return OptionalLong.empty();
    }
  }
}
