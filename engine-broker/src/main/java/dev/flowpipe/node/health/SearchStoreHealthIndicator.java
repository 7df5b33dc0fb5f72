package dev.flowpipe.node.health;

import dev.flowpipe.node.store.RunningStore;
import dev.flowpipe.schema.index.MigrationProgress;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * UP when the search store answers with green or yellow cluster health; the {@code schema} detail says whether start-up
 * migrated an older read-model schema, and how many documents.
 */
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
        .withDetail("embedded", store.isEmbedded())
        .withDetail("schema", schema(store.schemaMigration()));
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

  private static Map<String, Object> schema(MigrationProgress.Snapshot migration) {
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("version", migration.toVersion());
    schema.put("migration", migration.state().name());
    if (migration.state() != MigrationProgress.State.NOT_NEEDED) {
      schema.put("migratedFrom", migration.fromVersion());
      schema.put("documentsCopied", migration.copied());
      schema.put("documentsTotal", migration.total());
    }
    if (migration.error() != null) {
      schema.put("error", migration.error());
    }
    return schema;
  }
}
