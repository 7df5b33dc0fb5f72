package dev.flowpipe.webapp.api;

import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.webapp.query.Entity;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The process or decision definitions that are the latest version of their id (per tenant), for the v2 filter
 * {@code isLatestVersion}: read from the definitions at query time, so a newly deployed version is the latest as soon
 * as its definition is searchable, with nothing for the writer to keep. A read model holds few definitions (one per
 * deployed version), read a page of 1,000 at a time with only these fields.
 */
final class LatestVersions {

  private final ReadModel readModel;
  private final Duration storeTimeout;

  LatestVersions(ReadModel readModel, Duration storeTimeout) {
    this.readModel = readModel;
    this.storeTimeout = storeTimeout;
  }

  /** The keys of the latest definitions of {@code entity}: process definitions or decision definitions. */
  List<Object> keys(Entity entity) {
    String idField = switch (entity) {
      case PROCESS_DEFINITIONS -> "bpmnProcessId";
      case DECISION_DEFINITIONS -> "decisionId";
      default -> throw new IllegalArgumentException(entity + " has no versions");
    };
    Map<String, long[]> latest = new HashMap<>(); // id and tenant -> {version, key}
    // a deleted definition is no version any more (the searches leave it out)
    for (SearchHits.Hit hit : AllHits.read(readModel.store(), readModel.index(entity.index()), entity.alwaysApplied(),
        List.of(SortField.ascending("key")), entity.leftOutOfLists(), storeTimeout, Integer.MAX_VALUE)) {
      Map<String, Object> definition = hit.source();
      String process = definition.get(idField) + "\u0000" + definition.get("tenantId");
      long version = ((Number) definition.get("version")).longValue();
      long key = ((Number) definition.get("key")).longValue();
      latest.merge(process, new long[] {version, key}, (a, b) -> b[0] > a[0] ? b : a);
    }
    List<Object> keys = new ArrayList<>(latest.size());
    latest.values().forEach(versionAndKey -> keys.add(versionAndKey[1]));
    return keys;
  }
}
