package dev.flowpipe.node.health;

import dev.flowpipe.node.broker.EmbeddedBroker;
import io.camunda.zeebe.broker.system.partitions.ZeebePartition;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.stereotype.Component;

/** UP when the broker is started and ready and every partition it runs reports healthy; details per partition. */
@Component("broker")
public class BrokerHealthIndicator implements HealthIndicator {

  private final EmbeddedBroker broker;

  public BrokerHealthIndicator(EmbeddedBroker broker) {
    this.broker = broker;
  }

  @Override
  public Health health() {
    Map<String, Object> partitions = new LinkedHashMap<>();
    boolean allHealthy = true;
    for (ZeebePartition partition : broker.partitions()) {
      var report = partition.getHealthReport();
      partitions.put(String.valueOf(partition.getPartitionId()), report.getStatus().name());
      allHealthy &= report.isHealthy();
    }
    boolean ready = broker.isReady();
    boolean healthy = broker.isHealthy();
    Health.Builder builder =
        ready && healthy && allHealthy && !partitions.isEmpty() ? Health.up() : Health.down();
    return builder
        .withDetail("ready", ready)
        .withDetail("healthy", healthy)
        .withDetail("partitions", partitions)
        .build();
  }
}
