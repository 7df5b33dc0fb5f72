package dev.flowpipe.node.health;

import dev.flowpipe.exporter.health.ExporterHealth;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * The exporters this node's broker runs (one per partition it leads): DOWN, with the store's reason, while the store
 * refuses their writes (a user without write rights, a write block) or an exporter refuses the store's read model as
 * another log's; UP otherwise, also when this node leads no partition. Details per partition.
 */
@Component("exporter")
public class ExporterHealthIndicator implements HealthIndicator {

  private final MeterRegistry registry;

  public ExporterHealthIndicator(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Health health() {
    List<ExporterHealth.Report> reports = ExporterHealth.reportsFor(registry);
    Map<String, Object> partitions = new LinkedHashMap<>();
    boolean up = true;
    for (ExporterHealth.Report report : reports) {
      Map<String, Object> partition = new LinkedHashMap<>();
      partition.put("status", report.status().name());
      partition.put("since", report.since().toString());
      if (report.reason() != null) {
        partition.put("reason", report.reason());
      }
      partitions.put(String.valueOf(report.partitionId()), partition);
      up &= report.status() == ExporterHealth.Status.UP;
    }
    return (up ? Health.up() : Health.down()).withDetail("partitions", partitions).build();
  }
}
