package dev.flowpipe.node.health;

import dev.flowpipe.node.store.RunningStore;
import dev.flowpipe.node.store.StoreDisk;
import dev.flowpipe.embeddedstore.DiskWatermarks;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.MigrationProgress;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.stereotype.Component;

/**
 * UP when the search store answers with green or yellow cluster health; the {@code schema} detail says whether start-up
 * migrated an older read-model schema, and how many documents. For the embedded store also: {@code process} (whether
 * it is up, restarting or given up on, its restarts and last exit; DOWN while it is not up) and {@code disk} (free
 * space against the watermarks; OUT_OF_SERVICE at the flood stage, where the store refuses writes).
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
    var process = store.embeddedStatus();
    process.ifPresent(status -> builder.withDetail("process", process(status)));
    var disk = store.disk().map(StoreDisk::reading);
    disk.ifPresent(reading -> builder.withDetail("disk", disk(reading, store.disk().get().watermarks())));
    if (process.isPresent() && process.get().state() != EmbeddedSearchStore.State.UP
        && process.get().state() != EmbeddedSearchStore.State.STARTING) {
      // no need to ask a store whose process is gone
      return builder.down().withDetail("reason", process.get().reason()).build();
    }
    try {
      String status = store.client().health();
      builder.withDetail("product", store.client().product().name())
          .withDetail("version", store.client().version())
          .withDetail("status", status);
      if (!"green".equals(status) && !"yellow".equals(status)) {
        return builder.down().build();
      }
    } catch (RuntimeException e) {
      return builder.down().withDetail("error", e.getMessage()).build();
    }
    if (disk.isPresent() && disk.get().state() == DiskWatermarks.State.FLOOD) {
      return builder.status(Status.OUT_OF_SERVICE).withDetail("reason", "the embedded store's disk went above its"
          + " flood-stage watermark: the store refuses writes until usage is back below the high watermark, and the"
          + " exporter retries until then").build();
    }
    return builder.up().build();
  }

  private static Map<String, Object> process(EmbeddedSearchStore.Status status) {
    Map<String, Object> process = new LinkedHashMap<>();
    process.put("state", status.state().name());
    process.put("pid", status.pid());
    process.put("restarts", status.restarts());
    if (status.lastExitCode() != null) {
      process.put("lastExitCode", status.lastExitCode());
      process.put("lastExitAt", status.lastExitAt().toString());
    }
    if (status.nextAttemptAt() != null) {
      process.put("nextAttemptAt", status.nextAttemptAt().toString());
    }
    return process;
  }

  private static Map<String, Object> disk(StoreDisk.Reading reading, DiskWatermarks watermarks) {
    Map<String, Object> disk = new LinkedHashMap<>();
    disk.put("state", reading.state().name());
    disk.put("freeBytes", reading.freeBytes());
    disk.put("totalBytes", reading.totalBytes());
    disk.put("watermarks", Map.of(
        "low", watermarks.low().toString(),
        "high", watermarks.high().toString(),
        "floodStage", watermarks.floodStage().toString()));
    if (reading.error() != null) {
      disk.put("error", reading.error());
    }
    return disk;
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
