package dev.flowpipe.node.health;

import dev.flowpipe.node.store.RunningStore;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.stereotype.Component;

/** UP when the search store answers with green or yellow cluster health. */
@Component("searchStore")
public class SearchStoreHealthIndicator implements HealthIndicator {

  private final RunningStore store;

  public SearchStoreHealthIndicator(RunningStore store) {
    this.store = store;
  }

  @Override
  public Health health() {
    var builder = Health.unknown()
        .withDetail("url", store.connection().url().toString())
        .withDetail("embedded", store.isEmbedded());
    try {
      String status = store.client().health();
      return ("green".equals(status) || "yellow".equals(status) ? builder.up() : builder.down())
          .withDetail("product", store.client().product().name())
          .withDetail("version", store.client().version())
          .withDetail("status", status)
          .build();
    } catch (RuntimeException e) {
      return builder.down().withDetail("error", e.getMessage()).build();
    }
  }
}
