package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.index.ElementEntries;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.GroupCountQuery;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Incident statistics in the shapes of Camunda's v2 API (8.9): active process instances with an active incident, per
 * error ({@code getProcessInstanceStatisticsByError}) and, for one error, per process definition
 * ({@code getProcessInstanceStatisticsByDefinition}). An error is the hash of its message ({@code errorHashCode}, Java's
 * {@code String.hashCode}, as Camunda's), stored on each incident by the writer. The instances themselves are counted,
 * exactly: the writer keeps on each process-instance document the distinct hash codes of its open incidents
 * ({@code incidentErrorHashCodes}, a hash leaving with the last open incident of it; ADR 17), so the active instances
 * grouped by that many-valued field (a document in the group of each of its values, once) are the instances with an
 * active incident of each error, and a group's document count is the answer. (Before, the store's distinct count of
 * the incidents' instance keys, a sketch: 20,005 for 20,000 instances of one error in the scale run at a million.)
 * An error's message is that of any one of its active incidents. Groups are read from the store in full, page by
 * page, then sorted and paged here.
 */
public final class IncidentStatistics {

  private static final String COUNT = "activeInstancesWithErrorCount";
  private static final Set<String> BY_ERROR_PARTS = Set.of("sort", "page");
  private static final Set<String> BY_ERROR_SORT = Set.of("errorMessage", COUNT);
  private static final Set<String> BY_DEFINITION_PARTS = Set.of("filter", "sort", "page");
  private static final Set<String> BY_DEFINITION_SORT = Set.of("processDefinitionKey", COUNT, "tenantId");
  private static final List<Criterion> ACTIVE = List.of(new Criterion.Equals("state", "ACTIVE"));
  private static final String HASH_CODES = ElementEntries.INCIDENT_ERROR_HASH_CODES;

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
    // the message of each error: one active incident's (a group per error, not a document per incident)
    Map<Long, Object> messages = new HashMap<>();
    for (GroupCountQuery.Group group : counts.all(ReadModelIndex.INCIDENT, ACTIVE, List.of("errorMessageHash"),
        Map.of(), List.of("errorMessage"))) {
      messages.put(GroupedCounts.number(group, "errorMessageHash"), group.sample().get("errorMessage"));
    }
    List<Map<String, Object>> items = new ArrayList<>();
    for (GroupCountQuery.Group group : counts.all(ReadModelIndex.PROCESS_INSTANCE, ACTIVE, List.of(HASH_CODES),
        Map.of(), List.of())) {
      long hash = GroupedCounts.number(group, HASH_CODES);
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("errorHashCode", (int) hash);
      // none between the two reads only if the incident was resolved in between: its message is not known then
      item.put("errorMessage", messages.getOrDefault(hash, ""));
      item.put(COUNT, group.total());
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
    criteria.add(new Criterion.Equals(HASH_CODES, (int) hash));
    List<GroupCountQuery.Group> groups = counts.all(ReadModelIndex.PROCESS_INSTANCE, criteria,
        List.of("processDefinitionKey"), Map.of(), List.of("bpmnProcessId", "tenantId"));
    List<Map<String, Object>> items = new ArrayList<>();
    for (GroupCountQuery.Group group : groups) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("processDefinitionId", group.sample().get("bpmnProcessId"));
      item.put("processDefinitionKey", String.valueOf(GroupedCounts.number(group, "processDefinitionKey")));
      item.put("processDefinitionName", null); // of the definition, read for the page's items only (below)
      item.put("processDefinitionVersion", null);
      item.put("tenantId", group.sample().get("tenantId"));
      item.put(COUNT, group.total());
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
