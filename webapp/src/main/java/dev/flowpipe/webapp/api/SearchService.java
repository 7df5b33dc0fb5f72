package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.QueryRejectedException;
import dev.flowpipe.schema.store.SearchTimedOutException;
import dev.flowpipe.webapp.query.LimitExceededException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import dev.flowpipe.webapp.config.WebappProperties;
import dev.flowpipe.webapp.consistency.ReadYourWrites;
import dev.flowpipe.webapp.query.ApiField;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.query.Cursor;
import dev.flowpipe.webapp.query.Entity;
import dev.flowpipe.webapp.query.FieldType;
import dev.flowpipe.webapp.query.SearchRequestParser;
import dev.flowpipe.webapp.query.SearchRequestParser.ParsedSearch;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs the API's searches and reads on the read model and writes the answers in the API's field names. */
public final class SearchService {

  private final ReadModel readModel;
  private final SearchRequestParser parser;
  private final ReadYourWrites readYourWrites;
  private final Duration storeTimeout;
  private final int totalItemsCap;
  private final LatestVersions latestVersions;
  private final RequirementsOfDecisions requirements;
  private final BatchInstances batchInstances;
  private final FieldsOfInstances fieldsOfInstances;

  public SearchService(ReadModel readModel, WebappProperties properties, ReadYourWrites readYourWrites) {
    this.readModel = readModel;
    this.parser = new SearchRequestParser(properties.search(), properties.consistency(), properties.limits());
    this.readYourWrites = readYourWrites;
    this.storeTimeout = properties.search().storeTimeout();
    this.totalItemsCap = properties.search().totalItemsCap();
    this.latestVersions = new LatestVersions(readModel, storeTimeout);
    this.requirements = new RequirementsOfDecisions(readModel, parser, storeTimeout);
    this.batchInstances = new BatchInstances(readModel, storeTimeout);
    this.fieldsOfInstances = new FieldsOfInstances(readModel);
  }

  /**
   * A search, waiting for its {@code consistency} on this thread: for background work (batches, exports), not
   * requests. Its total is exact: the work may count on it.
   */
  public SearchAnswer search(Entity entity, JsonNode request) {
    try {
      return searchAsync(entity, request, List.of(), SearchQuery.EXACT_TOTAL).join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException cause ? cause : e;
    }
  }

  /**
   * A search of the API; one with a {@code consistency} condition not yet met completes once it is met or its timeout
   * ran out, without holding the calling thread meanwhile (the search then runs on the waits' answer threads). Its
   * total is counted up to {@code flowpipe.webapp.search.total-items-cap} (a count, {@code page.limit: 0}, exactly).
   */
  public CompletableFuture<SearchAnswer> searchAsync(Entity entity, JsonNode request) {
    return searchAsync(entity, request, List.of());
  }

  /** A search as above, narrowed by {@code scope} as well (the incidents of one instance and those it called). */
  public CompletableFuture<SearchAnswer> searchAsync(Entity entity, JsonNode request, List<Criterion> scope) {
    return searchAsync(entity, request, scope, totalItemsCap);
  }

  private CompletableFuture<SearchAnswer> searchAsync(Entity entity, JsonNode request, List<Criterion> scope,
      int totalCap) {
    ParsedSearch parsed = parser.parse(entity, request);
    // a count asks for the number itself; a page's total is what the cap is for
    int cap = parsed.page().limit() == 0 ? SearchQuery.EXACT_TOTAL : totalCap;
    if (parsed.consistency() == null) {
      return CompletableFuture.completedFuture(run(entity, parsed, scope, null, cap));
    }
    return readYourWrites.await(parsed.consistency()).thenApply(outcome -> run(entity, parsed, scope,
        new SearchAnswer.ConsistencyInfo(outcome.reached(), outcome.waited().toMillis()), cap));
  }

  private SearchAnswer run(Entity entity, ParsedSearch parsed, List<Criterion> scope,
      SearchAnswer.ConsistencyInfo consistency, int totalCap) {
    boolean backwards = parsed.page().backwards();
    List<SortField> sort = backwards ? parsed.sort().stream().map(SortField::reversed).toList() : parsed.sort();
    List<Object> cursor = backwards ? parsed.page().before() : parsed.page().after();
    List<Criterion> criteria = new ArrayList<>(criteria(entity, parsed));
    criteria.addAll(scope);
    if (parsed.latestVersion() != null) {
      Criterion latest = new Criterion.OneOf("key", latestVersions.keys(entity));
      criteria.add(parsed.latestVersion() ? latest : new Criterion.Not(latest));
    }
    if (parsed.batchFilter() != null) {
      criteria.addAll(batchInstances.criteria(parsed.batchFilter()));
    }
    if (parsed.requirementsFilter() != null) {
      criteria.add(new Criterion.OneOf("decisionRequirementsKey", requirements.keys(parsed.requirementsFilter())));
    }
    SearchQuery query =
        new SearchQuery(
            List.of(readModel.index(entity.index())), criteria, sort, parsed.page().from(),
            parsed.page().limit(), cursor, entity.leftOutOfLists(), storeTimeout, totalCap);
    SearchHits found;
    try {
      found = readModel.store().search(query);
    } catch (SearchTimedOutException e) {
      throw timedOut(storeTimeout);
    } catch (QueryRejectedException e) {
      throw new BadRequestException(cursor == null ? "body" : backwards ? "page.before" : "page.after",
          "the store cannot run this search: " + e.getMessage());
    }
    List<SearchHits.Hit> hits = new ArrayList<>(found.hits());
    if (backwards) {
      Collections.reverse(hits);
    }
    List<Map<String, Object>> items = hits.stream().map(hit -> item(entity, hit.source())).toList();
    if (entity == Entity.DECISION_DEFINITIONS) {
      requirements.addNames(items);
    }
    fieldsOfInstances.add(entity, items);
    String startCursor = hits.isEmpty() ? null : Cursor.encode(hits.getFirst().sortValues());
    String endCursor = hits.isEmpty() ? null : Cursor.encode(hits.getLast().sortValues());
    return new SearchAnswer(items,
        new SearchAnswer.PageInfo(found.total(), found.totalIsLowerBound(), startCursor, endCursor), consistency);
  }

  private static List<Criterion> criteria(Entity entity, ParsedSearch parsed) {
    if (entity.alwaysApplied().isEmpty()) {
      return parsed.criteria();
    }
    List<Criterion> criteria = new ArrayList<>(parsed.criteria());
    criteria.addAll(entity.alwaysApplied());
    return criteria;
  }

  /** A search or count the store stopped at its timeout, as the budget it ran into. */
  public static BadRequestException timedOut(Duration storeTimeout) {
    return LimitExceededException.ranOut("body", "the store stopped the search at its time budget of "
        + storeTimeout.toMillis() + " ms; narrow the filter (a leading-wildcard $like scans every value of its field)",
        "flowpipe.webapp.search.store-timeout", storeTimeout.toMillis());
  }

  /**
   * One entity by its key, read in real time (a document the exporter just wrote is there before any refresh); a
   * resource deleted in the engine is not found, as searches leave it out.
   */
  public Map<String, Object> get(Entity entity, String key) {
    Map<String, Object> document = document(entity, key);
    if (entity.hides(document)) {
      throw new NotFoundException("no " + entity.key().name() + " " + key + " in " + entity.path()
          + " (deleted in the engine)");
    }
    Map<String, Object> item = item(entity, document);
    if (entity == Entity.DECISION_DEFINITIONS) {
      requirements.addNames(List.of(item));
    }
    fieldsOfInstances.add(entity, List.of(item));
    if (entity == Entity.VARIABLES && Boolean.TRUE.equals(document.get("truncated"))) {
      item.put("value", document.get("fullValue"));
      item.put("isTruncated", false);
    }
    return item;
  }

  /**
   * The BPMN XML of a process definition, also of one deleted in the engine: its finished instances stay, and their
   * diagrams with them.
   */
  public String processDefinitionXml(String key) {
    Object xml = document(Entity.PROCESS_DEFINITIONS, key).get("bpmnXml");
    if (xml == null) {
      throw new NotFoundException("process definition " + key + " has no BPMN XML");
    }
    return xml.toString();
  }

  /**
   * The DMN XML of a DRD, or of the DRD a decision definition belongs to (as Camunda answers both), also of one deleted in
   * the engine: its decision instances stay, and their DRD with them.
   */
  public String decisionXml(Entity entity, String key) {
    Map<String, Object> requirements = entity == Entity.DECISION_DEFINITIONS
        ? document(Entity.DECISION_REQUIREMENTS,
            String.valueOf(document(Entity.DECISION_DEFINITIONS, key).get("decisionRequirementsKey")))
        : document(Entity.DECISION_REQUIREMENTS, key);
    Object xml = requirements.get("dmnXml");
    if (xml == null) {
      throw new NotFoundException(entity.key().name() + " " + key + " has no DMN XML");
    }
    return xml.toString();
  }

  private Map<String, Object> document(Entity entity, String key) {
    if (entity == Entity.DECISION_INSTANCES) {
      // <decisionEvaluationKey>-<n>, as Camunda's
      if (key == null || !key.matches("\\d{1,19}-\\d{1,9}")) {
        throw new BadRequestException("key",
            "expected a decision evaluation instance key (<digits>-<digits>), was '" + key + "'");
      }
    } else {
      if (key == null || !key.matches("\\d{1,19}")) {
        throw new BadRequestException("key", "expected a key (digits), was '" + key + "'");
      }
      try {
        Long.parseLong(key);
      } catch (NumberFormatException e) {
        throw new BadRequestException("key", "expected a key (digits), was '" + key + "'");
      }
    }
    ReadModelIndex index = entity.index();
    return readModel.store().get(readModel.index(index), key)
        .orElseThrow(() -> new NotFoundException("no " + entity.key().name() + " " + key + " in " + entity.path()));
  }

  /**
   * The answer's item: every field of the entity, null where the document has no value (the v2 results list their
   * nullable fields as required: present, maybe null), but for the large fields a search leaves out.
   */
  private static Map<String, Object> item(Entity entity, Map<String, Object> source) {
    Map<String, Object> item = new LinkedHashMap<>();
    for (ApiField field : entity.fields()) {
      Object value = source.get(field.stored());
      if (value != null || field.type() == FieldType.PRESENCE) {
        item.put(field.name(), field.answered(value));
      } else if (!entity.leftOutOfLists().contains(field.stored())) {
        item.put(field.name(), null);
      }
    }
    item.putAll(entity.constantAnswers());
    return item;
  }
}
