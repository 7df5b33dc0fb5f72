package dev.flowpipe.server.flowcontrol;

import dev.flowpipe.webapp.operations.WrittenPositions;
import java.net.URI;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Where a partition's log ends now, for the web app's read-your-writes beside a stock cluster: the partition leader's
 * last appended position, read from its monitoring port when an operation asks. Unknown (the operation answers
 * without a position) when the gateway names no leader or the leader's metrics cannot be read.
 */
public final class ClusterWrittenPositions implements WrittenPositions {

  private final Supplier<ClusterView> topology;
  private final BrokerMonitoring monitoring;

  public ClusterWrittenPositions(Supplier<ClusterView> topology, BrokerMonitoring monitoring) {
    this.topology = topology;
    this.monitoring = monitoring;
  }

  @Override
  public OptionalLong lastWritten(int partitionId) {
    try {
      ClusterView view = topology.get();
      Integer leader = view.leaders().get(partitionId);
      Optional<URI> url = leader == null ? Optional.empty() : monitoring.url(leader, view);
      if (url.isEmpty()) {
        return OptionalLong.empty();
      }
      Long position = monitoring.appendedPositions(url.get()).get(partitionId);
      return position == null ? OptionalLong.empty() : OptionalLong.of(position);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalLong.empty();
    } catch (Exception e) { // the gateway or the broker not reachable now: no position to wait for
      return OptionalLong.empty();
    }
  }
}
