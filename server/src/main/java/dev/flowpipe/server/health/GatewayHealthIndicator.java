package dev.flowpipe.server.health;

import dev.flowpipe.server.flowcontrol.ClusterView;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * UP when the gateway answers the topology and every partition it names has a leader: the server's operations then
 * reach the engine. DOWN (with the partitions without a leader, or the error) otherwise; part of readiness.
 */
public final class GatewayHealthIndicator implements HealthIndicator {

  private final Supplier<ClusterView> topology;
  private final String address;

  public GatewayHealthIndicator(Supplier<ClusterView> topology, String address) {
    this.topology = topology;
    this.address = address;
  }

  @Override
  public Health health() {
    Health.Builder health = Health.unknown().withDetail("address", address);
    ClusterView view;
    try {
      view = topology.get();
    } catch (RuntimeException e) {
      return health.down().withDetail("error", String.valueOf(e.getMessage())).build();
    }
    Set<Integer> leaderless = new TreeSet<>(view.partitions());
    leaderless.removeAll(view.leaders().keySet());
    health.withDetail("brokers", view.hosts().size()).withDetail("partitions", view.partitions().size());
    if (view.partitions().isEmpty()) {
      return health.down().withDetail("reason", "the topology names no partition").build();
    }
    if (!leaderless.isEmpty()) {
      return health.down().withDetail("partitionsWithoutLeader", leaderless).build();
    }
    return health.up().build();
  }
}
