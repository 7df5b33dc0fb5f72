package dev.flowpipe.schema.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchJson;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.ValueCountQuery;
import dev.flowpipe.schema.store.AnswerClass;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.IndexAdmin;
import dev.flowpipe.schema.store.RunningTasks;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreProduct;
import dev.flowpipe.schema.store.StoreUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@link SearchStore} port for OpenSearch and Elasticsearch alike: every request (documents, bulks, searches,
 * administration) is JSON in the REST API both share, sent through one {@link StoreTransport}, and every answer that
 * is not a success is sorted by {@link AnswerClass}. Writes are whole documents with external versioning (version =
 * log position), no scripts, so a bare Elasticsearch node serves as well as a full one.
 */
public final class JsonStore implements SearchStore {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {};
  // how the store says that a single-index request named an alias of several indices
  private static final String SEVERAL_INDICES = "more than one index";

  private final StoreTransport transport;
  private final StoreProduct product;
  private final String version;
  private final IndexAdmin admin = new IndexAdmin(this::exchange);

  /**
   * @param transport carries the requests; closed with this store
   * @param product and {@code version}: what the store said it is on {@code GET /}
   */
  public JsonStore(StoreTransport transport, StoreProduct product, String version) {
    this.transport = transport;
    this.product = product;
    this.version = version;
  }

  @Override
  public StoreProduct product() {
    return product;
  }

  @Override
  public String version() {
    return version;
  }

  @Override
  public String health() {
    return read("cluster health", StoreRequest.of("GET", "/_cluster/health")).path("status").asText()
        .toLowerCase(Locale.ROOT);
  }

  @Override
  public boolean indexExists(String index) {
    String what = "exists " + index;
    StoreAnswer answer = send(what, StoreRequest.of("HEAD", "/" + segment(index)));
    if (answer.status() == 404) {
      return false;
    }
    expectOk(what, answer);
    return true;
  }

  @Override
  public boolean createIndex(String index, String bodyJson) {
    String what = "creating index " + index;
    StoreAnswer answer = send(what, StoreRequest.json("PUT", "/" + segment(index), product.indexBody(bodyJson)));
    if (AnswerClass.ofAnswer(answer.status(), answer.text()) == AnswerClass.CONFLICT) {
      return false;
    }
    expectOk(what, answer);
    return true;
  }

  @Override
  public IndexAdmin admin() {
    return admin;
  }

  private IndexAdmin.Answer exchange(String what, String method, String path, String json) {
    StoreAnswer answer = send(what, StoreRequest.json(method, path, json));
    return new IndexAdmin.Answer(answer.status(), answer.text());
  }

  @Override
  public Map<String, Object> mappingMeta(String index) {
    JsonNode byIndex = read("mapping of " + index, StoreRequest.of("GET", "/" + segment(index) + "/_mapping"));
    if (!byIndex.elements().hasNext()) {
      return Map.of();
    }
    JsonNode meta = byIndex.elements().next().path("mappings").path("_meta");
    return meta.isObject() ? JSON.convertValue(meta, OBJECT) : Map.of();
  }

  @Override
  public BulkOutcome bulk(List<DocumentWrite> writes, boolean refresh) {
    if (writes.isEmpty()) {
      return new BulkOutcome(List.of(), List.of(), List.of());
    }
    String what = "bulk of " + writes.size();
    ByteArrayOutputStream body = new ByteArrayOutputStream(writes.size() * 512);
    for (DocumentWrite write : writes) {
      Map<String, Object> action = new LinkedHashMap<>();
      action.put("_index", write.index());
      action.put("_id", ReadModelIndex.storedId(write.index(), write.id()));
      // external versioning: the store refuses (409) a position it already holds or has passed, so replays are harmless
      action.put("version", write.position());
      action.put("version_type", "external");
      Map<String, Object> document = new LinkedHashMap<>(write.document());
      document.put("position", write.position());
      line(body, Map.of("index", action));
      line(body, ReadModelIndex.storedSource(write.index(), document));
    }
    StoreAnswer answer = send(what, new StoreRequest("POST", "/_bulk", Map.of("refresh", String.valueOf(refresh)),
        body.toByteArray(), StoreRequest.NDJSON));
    expectOk(what, answer);
    JsonNode items = parse(what, answer).path("items");
    if (items.size() != writes.size()) {
      throw new IllegalStateException(what + ": the store answered for " + items.size() + " items");
    }
    BulkOutcome.Collector outcome = new BulkOutcome.Collector();
    for (int i = 0; i < writes.size(); i++) {
      JsonNode item = items.get(i).elements().next();
      JsonNode error = item.path("error");
      outcome.item(writes.get(i), item.path("status").asInt(),
          error.isMissingNode() || error.isNull() ? null : error.path("type").asText() + ": " + error.path("reason").asText());
    }
    return outcome.outcome();
  }

  private static void line(ByteArrayOutputStream body, Object json) {
    try {
      JSON.writeValue(body, json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a document cannot be written as JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    body.write('\n');
  }

  @Override
  public Map<String, Map<String, Object>> getAll(String index, List<String> ids) {
    if (ids.isEmpty()) {
      return Map.of();
    }
    String what = "get " + ids.size() + " from " + index;
    List<String> storedIds = ReadModelIndex.storedIds(index, ids);
    StoreAnswer first = send(what, StoreRequest.json("POST", "/" + segment(index) + "/_mget",
        write(Map.of("ids", storedIds))));
    JsonNode answer = first.status() == 400 && first.text().contains(SEVERAL_INDICES)
        ? null : parse(what, expectedOk(what, first));
    if (answer == null || refusedForSeveralIndices(answer)) {
      answer = read(what, StoreRequest.json("POST", "/_mget", write(Map.of("docs", inEveryIndexOf(index, storedIds)))));
    }
    Map<String, Map<String, Object>> found = new LinkedHashMap<>();
    for (JsonNode doc : answer.path("docs")) {
      if (doc.path("found").asBoolean(false)) {
        found.put(ReadModelIndex.callerId(index, doc.path("_id").asText()), callerSource(index, doc));
      }
    }
    return found;
  }

  /**
   * An entity's name over several indices (the base and retention's period indices, ADR 0011) allows no multi-get by
   * ids alone: the ids are asked of each index it names, with the alias's filter left to the ids (unique per entity).
   */
  private List<Map<String, String>> inEveryIndexOf(String alias, List<String> storedIds) {
    JsonNode indices = read("indices of " + alias, StoreRequest.of("GET", "/_alias/" + segment(alias)));
    List<Map<String, String>> docs = new ArrayList<>();
    indices.fieldNames().forEachRemaining(concrete -> storedIds.forEach(id -> docs.add(Map.of("_index", concrete,
        "_id", id))));
    return docs;
  }

  /** Whether the store answered each document (as OpenSearch does) that the name stands for several indices. */
  private static boolean refusedForSeveralIndices(JsonNode mget) {
    for (JsonNode doc : mget.path("docs")) {
      if (doc.has("error") && doc.path("error").toString().contains(SEVERAL_INDICES)) {
        return true;
      }
    }
    return false;
  }

  private static StoreAnswer expectedOk(String what, StoreAnswer answer) {
    expectOk(what, answer);
    return answer;
  }

  @Override
  public void put(String index, String id, Map<String, Object> document) {
    read("put " + index + "/" + id,
        StoreRequest.json("PUT", "/" + segment(index) + "/_doc/" + segment(ReadModelIndex.storedId(index, id)),
            write(document)));
  }

  @Override
  public void refresh(String index) {
    read("refresh " + index, StoreRequest.of("POST", "/" + segment(index) + "/_refresh"));
  }

  @Override
  public Optional<Map<String, Object>> get(String index, String id) {
    String what = "get " + index + "/" + id;
    StoreAnswer answer =
        send(what, StoreRequest.of("GET", "/" + segment(index) + "/_doc/" + segment(ReadModelIndex.storedId(index, id))));
    if (answer.status() == 404) {
      return Optional.empty(); // no such document ({"found": false}), or no such index
    }
    if (answer.status() == 400 && answer.text().contains(SEVERAL_INDICES)) {
      return Optional.ofNullable(getAll(index, List.of(id)).get(id)); // an entity's name over periods (ADR 0011)
    }
    expectOk(what, answer);
    JsonNode doc = parse(what, answer);
    return doc.path("found").asBoolean(false) ? Optional.of(callerSource(index, doc)) : Optional.empty();
  }

  @Override
  public List<Map<String, Object>> findByField(String index, String field, Object value, int size) {
    Object term = value instanceof Long || value instanceof Integer || value instanceof Boolean || value instanceof Double
        ? value
        : String.valueOf(value);
    return sources("search " + index, index,
        Map.of("size", size, "query", Map.of("term", Map.of(field, Map.of("value", term)))));
  }

  @Override
  public List<Map<String, Object>> all(String index, int max) {
    return sources("read all of " + index, index, Map.of("size", max, "query", Map.of("match_all", Map.of()),
        // then by partition and log position: documents without a key (sequence flows, correlations) come in one
        // order every time, as no two of them were last written by the same record
        "sort", List.of(Map.of("key", Map.of("order", "asc")),
            Map.of("partitionId", Map.of("order", "asc", "unmapped_type", "integer")),
            Map.of("position", Map.of("order", "asc", "unmapped_type", "long")))));
  }

  private List<Map<String, Object>> sources(String what, String index, Map<String, Object> search) {
    JsonNode answer = read(what, StoreRequest.json("POST", "/" + segment(index) + "/_search", write(search)));
    List<Map<String, Object>> documents = new ArrayList<>();
    for (JsonNode hit : answer.path("hits").path("hits")) {
      documents.add(callerSource(index, hit));
    }
    return documents;
  }

  @Override
  public SearchHits search(SearchQuery query) {
    return postSearch(SearchJson.request(query));
  }

  @Override
  public List<ValueCountQuery.ValueCount> countByValue(ValueCountQuery query) {
    return postSearch(SearchJson.request(query));
  }

  @Override
  public dev.flowpipe.schema.query.GroupCountQuery.GroupCounts countGroups(
      dev.flowpipe.schema.query.GroupCountQuery query) {
    return postSearch(SearchJson.request(query));
  }

  /** Sends a {@code _search} body; the answer of any status goes to the request's reader. */
  private <T> T postSearch(SearchJson.Request<T> search) {
    StoreAnswer answer = send(search.what(), new StoreRequest("POST", search.path(), SearchJson.parameters(),
        search.body().getBytes(StandardCharsets.UTF_8), StoreRequest.JSON));
    return search.reader().read(answer.status(), answer.text());
  }

  @Override
  public Optional<Set<String>> runningTasks(String actions) {
    StoreAnswer answer = send("list tasks " + actions, StoreRequest.of("GET", RunningTasks.path(actions)));
    return RunningTasks.read(actions, answer.status(), answer.text());
  }

  @Override
  public long count(String index) {
    return read("count " + index, StoreRequest.of("GET", "/" + segment(index) + "/_count")).path("count").asLong();
  }

  @Override
  public void close() {
    transport.close();
  }

  /** One request; an answer of any status comes back, no answer at all is a {@link StoreUnavailableException}. */
  private StoreAnswer send(String what, StoreRequest request) {
    try {
      return transport.send(request);
    } catch (StoreUnavailableException e) {
      throw new StoreUnavailableException(what + " failed: " + e.getMessage(), e);
    }
  }

  /** One request whose answer must be a success, read as JSON. */
  private JsonNode read(String what, StoreRequest request) {
    StoreAnswer answer = send(what, request);
    expectOk(what, answer);
    return parse(what, answer);
  }

  private static void expectOk(String what, StoreAnswer answer) {
    if (answer.status() / 100 != 2) {
      throw AnswerClass.failure(what, answer.status(), answer.text());
    }
  }

  private static JsonNode parse(String what, StoreAnswer answer) {
    try {
      return JSON.readTree(answer.body());
    } catch (IOException e) {
      throw new IllegalStateException(what + ": unreadable answer: " + e.getMessage(), e);
    }
  }

  private static Map<String, Object> callerSource(String index, JsonNode hit) {
    return ReadModelIndex.callerSource(index, JSON.convertValue(hit.path("_source"), OBJECT));
  }

  private static String write(Object body) {
    try {
      return JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a value cannot be written as JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** One path segment (an index name or a document id), percent-encoded. */
  private static String segment(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
