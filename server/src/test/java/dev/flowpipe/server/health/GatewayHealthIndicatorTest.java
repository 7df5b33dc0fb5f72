package dev.flowpipe.server.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.server.flowcontrol.ClusterView;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

class GatewayHealthIndicatorTest {

  @Test
  void isUpWhenEveryPartitionOfTheTopologyHasALeader() {
    var view = new ClusterView(Map.of(1, 0, 2, 1), Map.of(0, "a", 1, "b"), Set.of(1, 2));

    Health health = new GatewayHealthIndicator(() -> view, "gw:26500").health();

    assertThat(health.getStatus()).isEqualTo(Status.UP);
    assertThat(health.getDetails()).containsEntry("address", "gw:26500").containsEntry("partitions", 2);
  }

  @Test
  void isDownNamingThePartitionsWithoutALeader() {
    var view = new ClusterView(Map.of(1, 0), Map.of(0, "a", 1, "b"), Set.of(1, 2, 3));

    Health health = new GatewayHealthIndicator(() -> view, "gw:26500").health();

    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
    assertThat(health.getDetails().get("partitionsWithoutLeader")).asString().isEqualTo("[2, 3]");
  }

  @Test
  void isDownWhenTheTopologyNamesNoPartition() {
    Health health = new GatewayHealthIndicator(() -> ClusterView.EMPTY, "gw:26500").health();

    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
  }

  @Test
  void isDownWithTheErrorWhenTheGatewayDoesNotAnswer() {
    Health health = new GatewayHealthIndicator(() -> {
      throw new IllegalStateException("io exception: connection refused");
    }, "gw:26500").health();

    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
    assertThat(health.getDetails()).containsEntry("error", "io exception: connection refused");
  }
}
