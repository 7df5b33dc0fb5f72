package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.ValueCountQuery;
import dev.flowpipe.schema.store.QueryRejectedException;
import dev.flowpipe.webapp.config.WebappProperties;
import dev.flowpipe.webapp.consistency.ReadYourWrites;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.query.Entity;
import dev.flowpipe.webapp.query.SearchRequestParser;
import dev.flowpipe.webapp.query.SearchRequestParser.ParsedSearch;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Per-element counts of a process definition's or a process instance's element instances, in one store request (a
 * count per element id, with the states counted within each): what a diagram shows on its elements.
 *
 * <p>Each element instance counts once: {@code active} (active, no open incident), {@code incidents} (active with an
 * open incident), {@code completed}, {@code canceled} (terminated).
 */
public final class ElementStatistics {

  /** The spec's filter is on process instances; these of its fields mean the same on an element instance. */
  private static final Set<String> FILTER_FIELDS = Set.of("processInstanceKey", "tenantId");
  private static final Set<String> REQUEST_PARTS = Set.of("filter", "consistency");
  /** List-valued filter parts that constrain nothing when empty. */
  private static final Set<String> EMPTY_LISTS = Set.of("$or", "variables", "tags");
  /** More element ids than a diagram can have. */
  private static final int MAX_ELEMENTS = 10_000;

  private static final Map<String, List<Criterion>> COUNTS = counts();

  private final ReadModel readModel;
  private final SearchRequestParser parser;
  private final ReadYourWrites readYourWrites;

  private final java.time.Duration storeTimeout;

  public ElementStatistics(ReadModel readModel, WebappProperties properties, ReadYourWrites readYourWrites) {
    this.readModel = readModel;
    this.parser = new SearchRequestParser(properties.search(), properties.consistency(), properties.limits());
    this.readYourWrites = readYourWrites;
    this.storeTimeout = properties.search().storeTimeout();
  }

  /**
   * The counts of a process definition's element instances, narrowed by the request's {@code filter} and, beyond the
   * v2 API, waiting for its {@code consistency} first.
   */
  public java.util.concurrent.CompletableFuture<List<Map<String, Object>>> ofProcessDefinition(
      String processDefinitionKey, JsonNode request) {
    long key = key("processDefinitionKey", processDefinitionKey);
    ObjectNode parsable = JsonNodeFactory.instance.objectNode();
    if (request != null && !request.isNull() && !request.isMissingNode()) {
      if (!request.isObject()) {
        throw new BadRequestException("body", "expected a JSON object {filter}");
      }
      for (Iterator<String> names = request.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!REQUEST_PARTS.contains(name)) {
          throw new BadRequestException(name, "unknown part of a statistics request; expected " + REQUEST_PARTS);
        }
      }
      parsable.setAll((ObjectNode) request.deepCopy());
      JsonNode filter = parsable.path("filter");
      for (Iterator<Map.Entry<String, JsonNode>> entries = filter.fields(); entries.hasNext(); ) {
        Map.Entry<String, JsonNode> entry = entries.next();
        if (entry.getValue().isArray() && entry.getValue().isEmpty() && EMPTY_LISTS.contains(entry.getKey())) {
          entries.remove(); // Camunda's 8.8 client sends them with every filter; Camunda applies them only when non-empty
        } else if (!FILTER_FIELDS.contains(entry.getKey())) {
          throw new BadRequestException("filter." + entry.getKey(), "not supported by the statistics here; supported: "
              + FILTER_FIELDS);
        }
      }
    }
    ParsedSearch parsed = parser.parse(Entity.ELEMENT_INSTANCES, parsable);
    List<Criterion> criteria = new ArrayList<>(parsed.criteria());
    criteria.add(new Criterion.Equals("processDefinitionKey", key));
    if (parsed.consistency() == null) {
      return java.util.concurrent.CompletableFuture.completedFuture(count(criteria));
    }
    return readYourWrites.await(parsed.consistency()).thenApply(reached -> count(criteria));
  }

  /** The counts of one process instance's element instances. */
  public List<Map<String, Object>> ofProcessInstance(String processInstanceKey) {
    long key = key("processInstanceKey", processInstanceKey);
    return count(List.of(new Criterion.Equals("processInstanceKey", key)));
  }

  private List<Map<String, Object>> count(List<Criterion> criteria) {
    ValueCountQuery query = new ValueCountQuery(
        List.of(readModel.index(ReadModelIndex.FLOW_NODE_INSTANCE)), criteria, "elementId", MAX_ELEMENTS, COUNTS,
        storeTimeout);
    List<ValueCountQuery.ValueCount> counts;
    try {
      counts = readModel.store().countByValue(query);
    } catch (dev.flowpipe.schema.store.SearchTimedOutException e) {
      throw SearchService.timedOut(storeTimeout);
    } catch (QueryRejectedException e) {
      throw new BadRequestException("body", "the store cannot run this count: " + e.getMessage());
    }
    List<Map<String, Object>> items = new ArrayList<>();
    for (ValueCountQuery.ValueCount count : counts) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("elementId", count.value());
      COUNTS.keySet().forEach(name -> item.put(name, count.conditions().get(name)));
      items.add(item);
    }
    return items;
  }

  // a path names one resource: a positive key (a filter may name -1, the key Camunda answers where there is none)
  private static long key(String part, String text) {
    return dev.flowpipe.webapp.operations.OperationRequests.key(part, text);
  }

  private static Map<String, List<Criterion>> counts() {
    Criterion active = new Criterion.Equals("state", "ACTIVE");
    Criterion incident = new Criterion.Exists("incidentKey");
    Map<String, List<Criterion>> counts = new LinkedHashMap<>();
    counts.put("active", List.of(active, new Criterion.Not(incident)));
    counts.put("canceled", List.of(new Criterion.Equals("state", "TERMINATED")));
    counts.put("incidents", List.of(active, incident));
    counts.put("completed", List.of(new Criterion.Equals("state", "COMPLETED")));
    return counts;
  }
}
