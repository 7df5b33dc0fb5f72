package dev.flowpipe.server.health;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.util.List;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * UP when the store answers with green or yellow cluster health and the read model's schema is there (the indices
 * our exporter creates when it starts in a broker: the entities' and the export positions'). DOWN otherwise, naming
 * what is missing or the error; part of readiness.
 */
public final class SearchStoreHealthIndicator implements HealthIndicator {

  private static final List<ReadModelIndex> SCHEMA = List.of(ReadModelIndex.PROCESS_INSTANCE,
      ReadModelIndex.EXPORT_POSITION);

  private final ReadModel readModel;

  public SearchStoreHealthIndicator(ReadModel readModel) {
    this.readModel = readModel;
  }

  @Override
  public Health health() {
    Health.Builder health = Health.unknown().withDetail("indexPrefix", readModel.indexPrefix());
    try {
      var store = readModel.store();
      String status = store.health();
      health.withDetail("status", status);
      if (!"green".equals(status) && !"yellow".equals(status)) {
        return health.down().build();
      }
      List<String> missing = SCHEMA.stream().map(readModel::index).distinct()
          .filter(index -> !store.indexExists(index)).toList();
      if (!missing.isEmpty()) {
        return health.down().withDetail("missingIndices", missing)
            .withDetail("reason", "no read-model schema under this prefix: our exporter creates it when it starts in "
                + "a broker").build();
      }
      return health.up().build();
    } catch (RuntimeException e) {
      return health.down().withDetail("error", String.valueOf(e.getMessage())).build();
    }
  }
}
