package dev.flowpipe.webapp.api;

import dev.flowpipe.schema.query.GroupCountQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.webapp.query.Entity;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The process or decision definitions that are the latest version of their id (per tenant), for the v2 filter
 * {@code isLatestVersion}: read from the definitions at query time, so a newly deployed version is the latest as soon
 * as its definition is searchable, with nothing for the writer to keep. The store groups the definitions by id and
 * tenant and gives each group's highest version's key: one group per id, page after page, however many versions an id
 * has (reading every definition took a document per version).
 */
final class LatestVersions {

  private static final List<SortField> HIGHEST_VERSION_FIRST =
      List.of(new SortField("version", true, false), SortField.ascending("key"));

  private final GroupedCounts groupedCounts;

  LatestVersions(ReadModel readModel, Duration storeTimeout) {
    this.groupedCounts = new GroupedCounts(readModel, storeTimeout);
  }

  /** The keys of the latest definitions of {@code entity}: process definitions or decision definitions. */
  List<Object> keys(Entity entity) {
    String idField = switch (entity) {
      case PROCESS_DEFINITIONS -> "bpmnProcessId";
      case DECISION_DEFINITIONS -> "decisionId";
      default -> throw new IllegalArgumentException(entity + " has no versions");
    };
    // a deleted definition is no version any more (the searches leave it out); the writer writes a tenant on every
    // definition, so grouping by it leaves none out
    List<Object> keys = new ArrayList<>();
    for (GroupCountQuery.Group group : groupedCounts.all(entity.index(), entity.alwaysApplied(),
        List.of(idField, "tenantId"), Map.of(), List.of("key"), HIGHEST_VERSION_FIRST)) {
      keys.add(((Number) group.sample().get("key")).longValue());
    }
    return keys;
  }
}
