package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.QueryRejectedException;
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

  public SearchService(ReadModel readModel, WebappProperties properties) {
    this.readModel = readModel;
    this.parser = new SearchRequestParser(properties.search(), properties.consistency());
    this.readYourWrites = new ReadYourWrites(properties.consistency().pollInterval());
  }

  public SearchAnswer search(Entity entity, JsonNode request) {
    ParsedSearch parsed = parser.parse(entity, request);
    SearchAnswer.ConsistencyInfo consistency = null;
    if (parsed.consistency() != null) {
      ReadYourWrites.Outcome outcome = readYourWrites.await(readModel, parsed.consistency());
      consistency = new SearchAnswer.ConsistencyInfo(outcome.reached(), outcome.waited().toMillis());
    }
    boolean backwards = parsed.page().backwards();
    List<SortField> sort = backwards ? parsed.sort().stream().map(SortField::reversed).toList() : parsed.sort();
    List<Object> cursor = backwards ? parsed.page().before() : parsed.page().after();
    SearchQuery query =
        new SearchQuery(
            List.of(readModel.index(entity.index())), parsed.criteria(), sort, parsed.page().from(),
            parsed.page().limit(), cursor, entity.leftOutOfLists());
    SearchHits found;
    try {
      found = readModel.store().search(query);
    } catch (QueryRejectedException e) {
      throw new BadRequestException(cursor == null ? "body" : backwards ? "page.before" : "page.after",
          "the store cannot run this search: " + e.getMessage());
    }
    List<SearchHits.Hit> hits = new ArrayList<>(found.hits());
    if (backwards) {
      Collections.reverse(hits);
    }
    List<Map<String, Object>> items = hits.stream().map(hit -> item(entity, hit.source())).toList();
    String startCursor = hits.isEmpty() ? null : Cursor.encode(hits.getFirst().sortValues());
    String endCursor = hits.isEmpty() ? null : Cursor.encode(hits.getLast().sortValues());
    // the store counts every match (no cap on the total), so there are never more than totalItems
    return new SearchAnswer(items, new SearchAnswer.PageInfo(found.total(), false, startCursor, endCursor), consistency);
  }

  /** One entity by its key, read in real time (a document the exporter just wrote is there before any refresh). */
  public Map<String, Object> get(Entity entity, String key) {
    Map<String, Object> document = document(entity, key);
    Map<String, Object> item = item(entity, document);
    if (entity == Entity.VARIABLES && Boolean.TRUE.equals(document.get("truncated"))) {
      item.put("value", document.get("fullValue"));
      item.put("isTruncated", false);
    }
    return item;
  }

  /** The BPMN XML of a process definition. */
  public String processDefinitionXml(String key) {
    Object xml = document(Entity.PROCESS_DEFINITIONS, key).get("bpmnXml");
    if (xml == null) {
      throw new NotFoundException("process definition " + key + " has no BPMN XML");
    }
    return xml.toString();
  }

  private Map<String, Object> document(Entity entity, String key) {
    if (key == null || !key.matches("\\d{1,19}")) {
      throw new BadRequestException("key", "expected a key (digits), was '" + key + "'");
    }
    try {
      Long.parseLong(key);
    } catch (NumberFormatException e) {
      throw new BadRequestException("key", "expected a key (digits), was '" + key + "'");
    }
    ReadModelIndex index = entity.index();
    return readModel.store().get(readModel.index(index), key)
        .orElseThrow(() -> new NotFoundException("no " + entity.key().name() + " " + key + " in " + entity.path()));
  }

  private static Map<String, Object> item(Entity entity, Map<String, Object> source) {
    Map<String, Object> item = new LinkedHashMap<>();
    for (ApiField field : entity.fields()) {
      Object value = source.get(field.stored());
      if (value != null || field.type() == FieldType.PRESENCE) {
        item.put(field.name(), field.answered(value));
      }
    }
    return item;
  }
}
