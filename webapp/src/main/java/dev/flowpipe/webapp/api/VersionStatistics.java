package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.GroupCountQuery;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Active process instances of one process per version, with and without incidents, in the shape of Camunda's v2 API
 * (8.9) {@code getProcessDefinitionInstanceVersionStatistics}: one group per process definition key, read from the
 * store in full, and the definitions' versions and names. Versions without active instances are not listed (as in
 * Camunda).
 */
public final class VersionStatistics {

  private static final String WITH_INCIDENT = "activeInstancesWithIncidentCount";
  private static final String WITHOUT_INCIDENT = "activeInstancesWithoutIncidentCount";
  private static final Set<String> PARTS = Set.of("filter", "sort", "page");
  // processDefinitionId is the filter's, so the same on every item: a sort on it is the tie-break's order (the spec's)
  private static final Set<String> SORT = Set.of("processDefinitionId", "processDefinitionKey", "processDefinitionVersion",
      "processDefinitionName", WITH_INCIDENT, WITHOUT_INCIDENT);
  private static final Map<String, List<Criterion>> CONDITIONS = Map.of(
      WITH_INCIDENT, List.of(new Criterion.Equals("incident", true)),
      WITHOUT_INCIDENT, List.of(new Criterion.Not(new Criterion.Equals("incident", true))));

  private final GroupedCounts counts;
  private final int defaultLimit;
  private final int maxLimit;

  public VersionStatistics(dev.flowpipe.webapp.readmodel.ReadModel readModel,
      dev.flowpipe.webapp.config.WebappProperties properties) {
    this.counts = new GroupedCounts(readModel, properties.search().storeTimeout());
    this.defaultLimit = properties.search().defaultPageSize();
    this.maxLimit = properties.search().maxPageSize();
  }

  /** The versions of {@code filter.processDefinitionId} (optionally of {@code filter.tenantId}) with active instances. */
  public Map<String, Object> byVersion(JsonNode body) {
    StatisticsRequest request =
        StatisticsRequest.parse(body, PARTS, SORT, "processDefinitionKey", defaultLimit, maxLimit);
    StatisticsRequest.onlyFilterFields(request.filter(), Set.of("processDefinitionId", "tenantId"));
    List<Criterion> criteria = new ArrayList<>();
    criteria.add(new Criterion.Equals("state", "ACTIVE"));
    criteria.add(new Criterion.Equals("bpmnProcessId",
        StatisticsRequest.requiredText(request.filter(), "processDefinitionId")));
    if (request.filter().has("tenantId")) {
      criteria.add(new Criterion.Equals("tenantId", StatisticsRequest.requiredText(request.filter(), "tenantId")));
    }
    List<GroupCountQuery.Group> groups = counts.all(ReadModelIndex.PROCESS_INSTANCE, criteria,
        List.of("processDefinitionKey"), CONDITIONS, List.of("bpmnProcessId", "version", "tenantId"));
    Map<Long, Map<String, Object>> definitions =
        counts.definitions(groups.stream().map(g -> GroupedCounts.number(g, "processDefinitionKey")).toList());
    List<Map<String, Object>> items = new ArrayList<>();
    for (GroupCountQuery.Group group : groups) {
      long key = GroupedCounts.number(group, "processDefinitionKey");
      Map<String, Object> definition = definitions.getOrDefault(key, Map.of());
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("processDefinitionId", group.sample().get("bpmnProcessId"));
      item.put("processDefinitionKey", String.valueOf(key));
      item.put("processDefinitionName", definition.get("name"));
      item.put("processDefinitionVersion", group.sample().getOrDefault("version", definition.get("version")));
      item.put("tenantId", group.sample().get("tenantId"));
      item.put(WITHOUT_INCIDENT, group.conditions().get(WITHOUT_INCIDENT));
      item.put(WITH_INCIDENT, group.conditions().get(WITH_INCIDENT));
      items.add(item);
    }
    return request.answer(items);
  }
}
