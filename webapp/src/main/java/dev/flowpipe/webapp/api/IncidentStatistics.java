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
 * Incident statistics in the shapes of Camunda's v2 API (8.9): active process instances with an active incident, per
 * error ({@code getProcessInstanceStatisticsByError}) and, for one error, per process definition
 * ({@code getProcessInstanceStatisticsByDefinition}). An error is the hash of its message ({@code errorHashCode}, Java's
 * {@code String.hashCode}, as Camunda's), stored on each incident by the writer. Instances are counted once per group
 * however many incidents they have in it (the store's distinct count, a sketch: not exact, 20,005 for 20,000
 * instances with one error in the scale run at a million; counting the instance documents' own hash codes would be). Groups are read
 * from the store in full, page by page, then sorted and paged here.
 */
public final class IncidentStatistics {

  private static final String COUNT = "activeInstancesWithErrorCount";
  private static final Set<String> BY_ERROR_PARTS = Set.of("sort", "page");
  private static final Set<String> BY_ERROR_SORT = Set.of("errorMessage", COUNT);
  private static final Set<String> BY_DEFINITION_PARTS = Set.of("filter", "sort", "page");
  private static final Set<String> BY_DEFINITION_SORT = Set.of("processDefinitionKey", COUNT, "tenantId");
  private static final List<Criterion> ACTIVE = List.of(new Criterion.Equals("state", "ACTIVE"));

  private final GroupedCounts counts;
  private final int defaultLimit;
  private final int maxLimit;

  public IncidentStatistics(dev.flowpipe.webapp.readmodel.ReadModel readModel,
      dev.flowpipe.webapp.config.WebappProperties properties) {
    this.counts = new GroupedCounts(readModel, properties.search().storeTimeout());
    this.defaultLimit = properties.search().defaultPageSize();
    this.maxLimit = properties.search().maxPageSize();
  }

  /** Per error: its hash, its message and the active instances with an active incident of it. */
  public Map<String, Object> byError(JsonNode body) {
    StatisticsRequest request =
        StatisticsRequest.parse(body, BY_ERROR_PARTS, BY_ERROR_SORT, "errorHashCode", defaultLimit, maxLimit);
    List<Map<String, Object>> items = new ArrayList<>();
    for (GroupCountQuery.Group group : counts.all(ReadModelIndex.INCIDENT, ACTIVE, List.of("errorMessageHash"),
        Map.of(), "processInstanceKey", List.of("errorMessage"))) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("errorHashCode", (int) GroupedCounts.number(group, "errorMessageHash"));
      item.put("errorMessage", group.sample().getOrDefault("errorMessage", ""));
      item.put(COUNT, group.distinct());
      items.add(item);
    }
    return request.answer(items);
  }

  /** For the error of {@code filter.errorHashCode}: per process definition, its active instances with it. */
  public Map<String, Object> byDefinition(JsonNode body) {
    StatisticsRequest request = StatisticsRequest.parse(body, BY_DEFINITION_PARTS, BY_DEFINITION_SORT,
        "processDefinitionKey", defaultLimit, maxLimit);
    StatisticsRequest.onlyFilterFields(request.filter(), Set.of("errorHashCode"));
    long hash = StatisticsRequest.requiredNumber(request.filter(), "errorHashCode");
    if (hash < Integer.MIN_VALUE || hash > Integer.MAX_VALUE) {
      throw new dev.flowpipe.webapp.query.BadRequestException("filter.errorHashCode",
          "expected a 32-bit hash code, was " + hash);
    }
    List<Criterion> criteria = new ArrayList<>(ACTIVE);
    criteria.add(new Criterion.Equals("errorMessageHash", (int) hash));
    List<GroupCountQuery.Group> groups = counts.all(ReadModelIndex.INCIDENT, criteria,
        List.of("processDefinitionKey"), Map.of(), "processInstanceKey", List.of("bpmnProcessId", "tenantId"));
    List<Map<String, Object>> items = new ArrayList<>();
    for (GroupCountQuery.Group group : groups) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("processDefinitionId", group.sample().get("bpmnProcessId"));
      item.put("processDefinitionKey", String.valueOf(GroupedCounts.number(group, "processDefinitionKey")));
      item.put("processDefinitionName", null); // of the definition, read for the page's items only (below)
      item.put("processDefinitionVersion", null);
      item.put("tenantId", group.sample().get("tenantId"));
      item.put(COUNT, group.distinct());
      items.add(item);
    }
    // the sort fields are the key, the count and the tenant, never the name: the page is cut first, and only its
    // definitions are read (an error in thousands of definitions read them all on every request)
    Map<String, Object> answer = request.answer(items);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> page = (List<Map<String, Object>>) answer.get("items");
    Map<Long, Map<String, Object>> definitions = counts.definitions(
        page.stream().map(item -> Long.parseLong((String) item.get("processDefinitionKey"))).toList());
    for (Map<String, Object> item : page) {
      Map<String, Object> definition =
          definitions.getOrDefault(Long.parseLong((String) item.get("processDefinitionKey")), Map.of());
      item.put("processDefinitionName", definition.get("name"));
      item.put("processDefinitionVersion", definition.get("version"));
      if (item.get("tenantId") == null) {
        item.put("tenantId", definition.get("tenantId"));
      }
    }
    return answer;
  }
}
