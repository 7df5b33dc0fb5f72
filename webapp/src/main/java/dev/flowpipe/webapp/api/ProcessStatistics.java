package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.GroupCountQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.webapp.config.WebappProperties;
import dev.flowpipe.webapp.consistency.ReadYourWrites;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.query.Entity;
import dev.flowpipe.webapp.query.SearchRequestParser;
import dev.flowpipe.webapp.query.SearchRequestParser.ParsedSearch;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Active process instances per process, with and without incidents, in the shape of Camunda's v2
 * {@code getProcessDefinitionInstanceStatistics}: the store's groups per process id (a composite aggregation paged to
 * its end, one request up to {@link GroupedCounts#PAGE} processes), sorted and cut to the page asked for; then the
 * definitions of the page's processes only, counted per process by the store with the latest one's name (one group per
 * process, however many versions it has). Nothing is cut at a fixed size. What a dashboard shows per process.
 */
public final class ProcessStatistics {

  private static final Set<String> REQUEST_PARTS = Set.of("sort", "page", "consistency");
  private static final Set<String> SORT_FIELDS =
      Set.of("processDefinitionId", "activeInstancesWithIncidentCount", "activeInstancesWithoutIncidentCount");
  private static final String WITH_INCIDENT = "activeInstancesWithIncidentCount";
  private static final String WITHOUT_INCIDENT = "activeInstancesWithoutIncidentCount";
  /** What the dashboard shows of a process's latest definition. */
  private static final List<String> LATEST_FIELDS = List.of("name", "tenantId");

  private final SearchRequestParser parser;
  private final ReadYourWrites readYourWrites;

  private final java.time.Duration storeTimeout;
  private final GroupedCounts groupedCounts;

  public ProcessStatistics(ReadModel readModel, WebappProperties properties, ReadYourWrites readYourWrites) {
    this.parser = new SearchRequestParser(properties.search(), properties.consistency(), properties.limits());
    this.readYourWrites = readYourWrites;
    this.storeTimeout = properties.search().storeTimeout();
    this.groupedCounts = new GroupedCounts(readModel, storeTimeout);
  }

  /** The processes with active instances; {@code sort} and offset {@code page} as in the v2 request. */
  public java.util.concurrent.CompletableFuture<Map<String, Object>> activeInstances(JsonNode request) {
    ObjectNode body = request != null && request.isObject() ? (ObjectNode) request : JsonNodeFactory.instance.objectNode();
    if (request != null && !request.isNull() && !request.isMissingNode() && !request.isObject()) {
      throw new BadRequestException("body", "expected a JSON object {sort, page}");
    }
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!REQUEST_PARTS.contains(name)) {
        throw new BadRequestException(name, "unknown part of a statistics request; expected " + REQUEST_PARTS);
      }
    }
    ParsedSearch consistency = parser.parse(Entity.PROCESS_INSTANCES, body.deepCopy().retain("consistency"));
    Comparator<Map<String, Object>> order = order(body.path("sort"));
    int from = pageValue(body.path("page"), "from", 0);
    int limit = pageValue(body.path("page"), "limit", 100);
    if (consistency.consistency() == null) {
      return java.util.concurrent.CompletableFuture.completedFuture(counted(order, from, limit));
    }
    return readYourWrites.await(consistency.consistency()).thenApply(reached -> counted(order, from, limit));
  }

  private static int pageValue(JsonNode page, String name, int absent) {
    JsonNode value = page.path(name);
    if (value.isMissingNode() || value.isNull()) {
      return absent;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0) {
      throw new BadRequestException("page." + name, "expected an integer >= 0, was " + value);
    }
    return value.intValue();
  }

  private Map<String, Object> counted(Comparator<Map<String, Object>> order, int from, int limit) {
    // every process with active instances, page after page of the store's groups: none cut off at a fixed size
    List<GroupCountQuery.Group> counts = groupedCounts.all(ReadModelIndex.PROCESS_INSTANCE,
        List.of(new Criterion.Equals("state", "ACTIVE")), List.of("bpmnProcessId"),
        Map.of(WITH_INCIDENT, List.of(new Criterion.Equals("incident", true)),
            WITHOUT_INCIDENT, List.of(new Criterion.Not(new Criterion.Equals("incident", true)))), List.of());
    List<Map<String, Object>> items = new ArrayList<>();
    for (GroupCountQuery.Group count : counts) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("processDefinitionId", String.valueOf(count.key().get("bpmnProcessId")));
      item.put(WITHOUT_INCIDENT, count.conditions().get(WITHOUT_INCIDENT));
      item.put(WITH_INCIDENT, count.conditions().get(WITH_INCIDENT));
      items.add(item);
    }
    // the sort fields are the id and the counts, never the name: the page is cut first, and only its processes'
    // definitions are read (all of them, with thousands of processes, took seconds per request)
    items.sort(order);
    // in long: from + limit near Integer.MAX_VALUE would overflow
    List<Map<String, Object>> page = items.subList(Math.min(from, items.size()),
        (int) Math.min((long) from + limit, items.size()));
    Map<String, GroupCountQuery.Group> definitions =
        definitions(page.stream().map(item -> item.get("processDefinitionId")).toList());
    List<Map<String, Object>> named = new ArrayList<>(page.size());
    for (Map<String, Object> counted : page) {
      GroupCountQuery.Group ofProcess = definitions.get((String) counted.get("processDefinitionId"));
      Map<String, Object> latest = ofProcess == null ? Map.of() : ofProcess.sample();
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("processDefinitionId", counted.get("processDefinitionId"));
      item.put("tenantId", latest.getOrDefault("tenantId", "<default>"));
      item.put("latestProcessDefinitionName", latest.get("name"));
      item.put("hasMultipleVersions", ofProcess != null && ofProcess.total() > 1);
      item.put(WITHOUT_INCIDENT, counted.get(WITHOUT_INCIDENT));
      item.put(WITH_INCIDENT, counted.get(WITH_INCIDENT));
      named.add(item);
    }
    return Map.of("items", named, "page", Map.of("totalItems", items.size()));
  }

  /**
   * Per process id of these: how many definitions it has and the fields of its latest one (highest version; the
   * lowest key among equal versions), counted by the store - one group per process, page after page of groups, so a
   * process of thousands of versions costs one group, not thousands of documents.
   */
  private Map<String, GroupCountQuery.Group> definitions(List<Object> processIds) {
    Map<String, GroupCountQuery.Group> byProcess = new HashMap<>();
    if (processIds.isEmpty()) {
      return byProcess;
    }
    for (GroupCountQuery.Group group : groupedCounts.all(ReadModelIndex.PROCESS_DEFINITION,
        List.of(new Criterion.OneOf("bpmnProcessId", processIds)), List.of("bpmnProcessId"), Map.of(),
        LATEST_FIELDS, List.of(new SortField("version", true, false), SortField.ascending("key")))) {
      byProcess.put(String.valueOf(group.key().get("bpmnProcessId")), group);
    }
    return byProcess;
  }

  @SuppressWarnings("unchecked")
  private static Comparator<Map<String, Object>> order(JsonNode sort) {
    Comparator<Map<String, Object>> order = Comparator.comparing(item -> 0);
    if (!sort.isMissingNode() && !sort.isNull() && !sort.isArray()) {
      throw new BadRequestException("sort", "expected an array of {field, order}");
    }
    if (sort.size() > SORT_FIELDS.size()) {
      throw new BadRequestException("sort", "at most " + SORT_FIELDS.size() + " sort entries, was " + sort.size());
    }
    for (int i = 0; i < sort.size(); i++) {
      String field = sort.get(i).path("field").asText();
      if (!SORT_FIELDS.contains(field)) {
        throw new BadRequestException("sort[" + i + "].field", "expected one of " + SORT_FIELDS + ", was '" + field + "'");
      }
      Comparator<Map<String, Object>> byField = Comparator.comparing(item -> (Comparable<Object>) item.get(field));
      order = order.thenComparing(
          "desc".equalsIgnoreCase(sort.get(i).path("order").asText("asc")) ? byField.reversed() : byField);
    }
    return order.thenComparing(item -> (String) item.get("processDefinitionId"));
  }
}
