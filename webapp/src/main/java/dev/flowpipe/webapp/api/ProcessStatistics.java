package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.GroupCountQuery;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
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
 * definitions of the page's processes only, for each one's latest name and whether it has several versions (paged to
 * the end, one request up to {@link #DEFINITIONS_PAGE} definitions). Nothing is cut at a fixed size. What a dashboard
 * shows per process.
 */
public final class ProcessStatistics {

  private static final Set<String> REQUEST_PARTS = Set.of("sort", "page", "consistency");
  private static final Set<String> SORT_FIELDS =
      Set.of("processDefinitionId", "activeInstancesWithIncidentCount", "activeInstancesWithoutIncidentCount");
  private static final String WITH_INCIDENT = "activeInstancesWithIncidentCount";
  private static final String WITHOUT_INCIDENT = "activeInstancesWithoutIncidentCount";
  /** Definitions read per store request for their names (all are read, page after page). */
  static final int DEFINITIONS_PAGE = 10_000;

  private final ReadModel readModel;
  private final SearchRequestParser parser;
  private final ReadYourWrites readYourWrites;

  private final java.time.Duration storeTimeout;
  private final GroupedCounts groupedCounts;

  public ProcessStatistics(ReadModel readModel, WebappProperties properties, ReadYourWrites readYourWrites) {
    this.readModel = readModel;
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
            WITHOUT_INCIDENT, List.of(new Criterion.Not(new Criterion.Equals("incident", true)))), null, List.of());
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
    Map<String, List<Map<String, Object>>> versions =
        definitions(page.stream().map(item -> item.get("processDefinitionId")).toList());
    List<Map<String, Object>> named = new ArrayList<>(page.size());
    for (Map<String, Object> counted : page) {
      List<Map<String, Object>> ofProcess = versions.getOrDefault((String) counted.get("processDefinitionId"), List.of());
      Map<String, Object> latest = ofProcess.isEmpty() ? Map.of() : ofProcess.getFirst();
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("processDefinitionId", counted.get("processDefinitionId"));
      item.put("tenantId", latest.getOrDefault("tenantId", "<default>"));
      item.put("latestProcessDefinitionName", latest.get("name"));
      item.put("hasMultipleVersions", ofProcess.size() > 1);
      item.put(WITHOUT_INCIDENT, counted.get(WITHOUT_INCIDENT));
      item.put(WITH_INCIDENT, counted.get(WITH_INCIDENT));
      named.add(item);
    }
    return Map.of("items", named, "page", Map.of("totalItems", items.size()));
  }

  /**
   * The definitions of these processes, per process id, latest version first: every one of them, read page by page
   * after the last one seen (one request while they fit in a page), so a process is never left without its name.
   */
  private Map<String, List<Map<String, Object>>> definitions(List<Object> processIds) {
    Map<String, List<Map<String, Object>>> byProcess = new HashMap<>();
    if (processIds.isEmpty()) {
      return byProcess;
    }
    List<Object> after = List.of();
    while (true) {
      SearchHits hits = readModel.store().search(new SearchQuery(
          List.of(readModel.index(ReadModelIndex.PROCESS_DEFINITION)),
          List.of(new Criterion.OneOf("bpmnProcessId", processIds)),
          List.of(new SortField("version", true, false), SortField.ascending("key")), 0, DEFINITIONS_PAGE, after,
          List.of("bpmnXml"), storeTimeout));
      for (SearchHits.Hit hit : hits.hits()) {
        byProcess.computeIfAbsent(String.valueOf(hit.source().get("bpmnProcessId")), id -> new ArrayList<>())
            .add(hit.source());
      }
      if (hits.hits().size() < DEFINITIONS_PAGE) {
        return byProcess;
      }
      after = hits.hits().getLast().sortValues();
    }
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
