package dev.flowpipe.schema.query;

import dev.flowpipe.schema.index.ReadModelIndex;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.store.AnswerClass;
import dev.flowpipe.schema.store.QueryRejectedException;
import dev.flowpipe.schema.store.RequestTooLargeException;
import dev.flowpipe.schema.store.SearchTimedOutException;
import dev.flowpipe.schema.store.StoreUnavailableException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code _search} request body for a {@link SearchQuery}, and the reading of the answer. OpenSearch and
 * Elasticsearch speak the same query DSL for everything a {@link SearchQuery} can say, so this one body serves both.
 */
public final class SearchJson {

  private static final ObjectMapper JSON = new ObjectMapper();

  private SearchJson() {}

  /** Reads a {@code _search} answer of any HTTP status into a result. */
  @FunctionalInterface
  public interface AnswerReader<T> {
    T read(int status, String answer);
  }

  /**
   * A {@code _search} request as the store adapter sends it.
   *
   * @param what what it does, for messages
   * @param path the path with the indices
   * @param body the JSON body
   * @param reader reads the answer of any status
   */
  public record Request<T>(String what, String path, String body, AnswerReader<T> reader) {}

  public static Request<SearchHits> request(SearchQuery query) {
    String what = "search " + query.indices();
    return new Request<>(what, path(query.indices()), body(query), (status, answer) -> hits(what, status, answer));
  }

  public static Request<List<ValueCountQuery.ValueCount>> request(ValueCountQuery query) {
    String what = "count by " + query.field() + " in " + query.indices();
    return new Request<>(what, path(query.indices()), body(query),
        (status, answer) -> valueCounts(query, what, status, answer));
  }

  public static Request<GroupCountQuery.GroupCounts> request(GroupCountQuery query) {
    String what = "count by " + query.groupBy() + " in " + query.indices();
    return new Request<>(what, path(query.indices()), body(query),
        (status, answer) -> groupCounts(query, answer(what, status, answer)));
  }

  /** The path to search, e.g. {@code /a,b/_search}; indices that do not exist count as empty. */
  public static String path(SearchQuery query) {
    return path(query.indices());
  }

  /** The path to search these indices, e.g. {@code /a,b/_search}. */
  public static String path(List<String> indices) {
    return "/" + URLEncoder.encode(String.join(",", indices), StandardCharsets.UTF_8).replace("%2C", ",")
        + "/_search";
  }

  /** Query parameters of the search: missing indices are no error. */
  public static Map<String, String> parameters() {
    return Map.of("ignore_unavailable", "true", "allow_no_indices", "true");
  }

  public static String body(SearchQuery query) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("query", allOf(query.criteria()));
    List<Object> sort = sort(query.sort());
    if (!sort.isEmpty()) {
      body.put("sort", sort);
    }
    if (query.searchAfter().isEmpty()) {
      body.put("from", query.from());
    } else {
      body.put("search_after", query.searchAfter());
    }
    body.put("size", query.size());
    // an exact count visits every match and turns off the store's skipping of documents that cannot reach the page
    body.put("track_total_hits", query.totalCap() == SearchQuery.EXACT_TOTAL ? (Object) true : query.totalCap());
    body.put("timeout", timeout(query.timeout()));
    if (!query.excludedFields().isEmpty()) {
      body.put("_source", Map.of("excludes", query.excludedFields()));
    }
    return write(body);
  }

  /**
   * The {@code _search} body of a {@link ValueCountQuery}: no hits, a terms aggregation on the field (in value order,
   * so a cut at {@code maxValues} is the same on every call) with a filters aggregation of the named conditions.
   */
  public static String body(ValueCountQuery query) {
    Map<String, Object> conditions = new LinkedHashMap<>();
    query.conditions().forEach((name, criteria) -> conditions.put(name, allOf(criteria)));
    Map<String, Object> terms = new LinkedHashMap<>();
    terms.put("field", query.field());
    terms.put("size", query.maxValues());
    terms.put("order", Map.of("_key", "asc"));
    Map<String, Object> byValue = new LinkedHashMap<>();
    byValue.put("terms", terms);
    if (!conditions.isEmpty()) {
      byValue.put("aggs", Map.of(CONDITIONS, Map.of("filters", Map.of("filters", conditions))));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("query", allOf(query.criteria()));
    body.put("size", 0);
    body.put("track_total_hits", false);
    body.put("timeout", timeout(query.timeout()));
    body.put("aggs", Map.of(BY_VALUE, byValue));
    return write(body);
  }

  /**
   * The {@code _search} body of a {@link GroupCountQuery}: no hits, a composite aggregation on the fields (one source
   * per field, named by it), after the previous page's key, with the conditions and the sample under it.
   */
  public static String body(GroupCountQuery query) {
    List<Object> sources = new ArrayList<>();
    for (String field : query.groupBy()) {
      sources.add(Map.of(field, Map.of("terms", Map.of("field", field))));
    }
    Map<String, Object> composite = new LinkedHashMap<>();
    composite.put("size", query.pageSize());
    composite.put("sources", sources);
    if (query.after() != null) {
      composite.put("after", query.after());
    }
    Map<String, Object> inside = new LinkedHashMap<>();
    if (!query.conditions().isEmpty()) {
      Map<String, Object> conditions = new LinkedHashMap<>();
      query.conditions().forEach((name, criteria) -> conditions.put(name, allOf(criteria)));
      inside.put(CONDITIONS, Map.of("filters", Map.of("filters", conditions)));
    }
    if (!query.sampleFields().isEmpty()) {
      Map<String, Object> sample = new LinkedHashMap<>();
      sample.put("size", 1);
      sample.put("_source", Map.of("includes", query.sampleFields()));
      if (!query.sampleOrder().isEmpty()) {
        sample.put("sort", sort(query.sampleOrder()));
      }
      inside.put(SAMPLE, Map.of("top_hits", sample));
    }
    Map<String, Object> groups = new LinkedHashMap<>();
    groups.put("composite", composite);
    if (!inside.isEmpty()) {
      groups.put("aggs", inside);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("query", allOf(query.criteria()));
    body.put("size", 0);
    body.put("track_total_hits", false);
    body.put("timeout", timeout(query.timeout()));
    body.put("aggs", Map.of(GROUPS, groups));
    return write(body);
  }

  private static GroupCountQuery.GroupCounts groupCounts(GroupCountQuery query, JsonNode root) {
    JsonNode aggregation = root.path("aggregations").path(GROUPS);
    List<GroupCountQuery.Group> groups = new ArrayList<>();
    for (JsonNode bucket : aggregation.path("buckets")) {
      Map<String, Long> conditions = new LinkedHashMap<>();
      for (String name : query.conditions().keySet()) {
        conditions.put(name, bucket.path(CONDITIONS).path("buckets").path(name).path("doc_count").asLong(0));
      }
      JsonNode hits = bucket.path(SAMPLE).path("hits").path("hits");
      Map<String, Object> sample = hits.isEmpty() ? Map.of() : JSON.convertValue(hits.get(0).path("_source"),
          new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() {});
      groups.add(new GroupCountQuery.Group(
          JSON.convertValue(bucket.path("key"), new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() {}),
          bucket.path("doc_count").asLong(), conditions, sample));
    }
    JsonNode afterKey = aggregation.path("after_key");
    // a page shorter than asked is the last; a full one may be followed by more
    Map<String, Object> next = groups.size() < query.pageSize() || afterKey.isMissingNode() ? null
        : JSON.convertValue(afterKey, new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() {});
    return new GroupCountQuery.GroupCounts(groups, next);
  }

  private static List<Object> sort(List<SortField> fields) {
    List<Object> sort = new ArrayList<>();
    for (SortField field : fields) {
      sort.add(Map.of(field.field(),
          Map.of("order", field.descending() ? "desc" : "asc", "missing", field.missingFirst() ? "_first" : "_last")));
    }
    return sort;
  }

  /** The store's time unit syntax; whole milliseconds (at least one). */
  private static String timeout(java.time.Duration timeout) {
    return Math.max(1, timeout.toMillis()) + "ms";
  }

  private static final String BY_VALUE = "byValue";
  private static final String CONDITIONS = "conditions";
  private static final String GROUPS = "groups";
  private static final String SAMPLE = "sample";

  private static String write(Map<String, Object> body) {
    try {
      return JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a search value cannot be written as JSON: " + e.getMessage(), e);
    }
  }

  private static Map<String, Object> allOf(List<Criterion> criteria) {
    List<Object> filter = new ArrayList<>();
    List<Object> mustNot = new ArrayList<>();
    for (Criterion criterion : criteria) {
      if (criterion instanceof Criterion.Not not) {
        mustNot.add(clause(not.criterion()));
      } else {
        filter.add(clause(criterion));
      }
    }
    return Map.of("bool", Map.of("filter", filter, "must_not", mustNot));
  }

  private static Map<String, Object> clause(Criterion criterion) {
    return switch (criterion) {
      case Criterion.Equals equals -> Map.of("term", Map.of(equals.field(), Map.of("value", equals.value())));
      case Criterion.OneOf oneOf -> Map.of("terms", Map.of(oneOf.field(), oneOf.values()));
      case Criterion.Exists exists -> Map.of("exists", Map.of("field", exists.field()));
      case Criterion.Like like -> Map.of("wildcard", Map.of(like.field(), Map.of("value", like.pattern())));
      case Criterion.Range range -> {
        Map<String, Object> bounds = new LinkedHashMap<>();
        putIfSet(bounds, "gt", range.greaterThan());
        putIfSet(bounds, "gte", range.atLeast());
        putIfSet(bounds, "lt", range.lessThan());
        putIfSet(bounds, "lte", range.atMost());
        yield Map.of("range", Map.of(range.field(), bounds));
      }
      case Criterion.Not not -> Map.of("bool", Map.of("must_not", List.of(clause(not.criterion()))));
      case Criterion.AnyOf anyOf ->
          Map.of("bool", Map.of("should", anyOf.groups().stream().map(SearchJson::allOf).toList(), "minimum_should_match", 1));
    };
  }

  private static void putIfSet(Map<String, Object> map, String key, Object value) {
    if (value != null) {
      map.put(key, value);
    }
  }

  /**
   * Reads a {@code _search} answer of any HTTP status.
   *
   * @throws QueryRejectedException when the store refused the query (400, or every shard failed for the query's sake)
   * @throws StoreUnavailableException when the store is overloaded or failing (429, 5xx)
   * @throws RequestTooLargeException when the store refuses the search as too large (413): ask for fewer hits
   */
  public static SearchHits hits(String what, int status, String answer) {
    return hits(answer(what, status, answer));
  }

  /**
   * Reads the answer to a {@link #body(ValueCountQuery)} search of any HTTP status: the counts per value, in value
   * order; a value without documents is absent.
   *
   * @throws QueryRejectedException when the store refused the query (e.g. the field cannot be aggregated on)
   * @throws StoreUnavailableException when the store is overloaded or failing (429, 5xx)
   */
  public static List<ValueCountQuery.ValueCount> valueCounts(
      ValueCountQuery query, String what, int status, String answer) {
    JsonNode root = answer(what, status, answer);
    List<ValueCountQuery.ValueCount> counts = new ArrayList<>();
    for (JsonNode bucket : root.path("aggregations").path(BY_VALUE).path("buckets")) {
      JsonNode value = bucket.has("key_as_string") ? bucket.get("key_as_string") : bucket.path("key");
      Map<String, Long> conditions = new LinkedHashMap<>();
      for (String name : query.conditions().keySet()) {
        conditions.put(name, bucket.path(CONDITIONS).path("buckets").path(name).path("doc_count").asLong(0));
      }
      counts.add(new ValueCountQuery.ValueCount(value.asText(), bucket.path("doc_count").asLong(), conditions));
    }
    return counts;
  }

  /** The answer's JSON once its status and shards say it ran; the store's refusals as exceptions. */
  private static JsonNode answer(String what, int status, String answer) {
    if (status != 200) {
      if (status == 400 && AnswerClass.ofAnswer(status, answer) == AnswerClass.MALFORMED) {
        throw new QueryRejectedException(what + ": the store refused the search: " + answer, null);
      }
      throw AnswerClass.failure(what, status, answer);
    }
    JsonNode root;
    try {
      root = JSON.readTree(answer);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unreadable search answer: " + e.getMessage(), e);
    }
    JsonNode shards = root.path("_shards");
    if (shards.path("failed").asInt(0) > 0 && shards.path("successful").asInt(0) == 0) {
      // every shard failed: the store answered 200 but ran nothing (Elasticsearch does so for a bad cursor value)
      boolean clientFault = true;
      for (JsonNode failure : shards.path("failures")) {
        int failureStatus = failure.path("status").asInt(400);
        clientFault &= failureStatus >= 400 && failureStatus < 500;
      }
      String reason = "every shard failed the search: " + shards.path("failures");
      if (clientFault) {
        throw new QueryRejectedException(reason, null);
      }
      throw new StoreUnavailableException(reason);
    }
    if (root.path("timed_out").asBoolean(false)) {
      // the store stopped at the body's timeout and answers what it found so far: a part is no answer
      throw new SearchTimedOutException(what + " ran longer than its store-side timeout and was stopped");
    }
    return root;
  }

  private static SearchHits hits(JsonNode root) {
    try {
      JsonNode hits = root.path("hits");
      long total = hits.path("total").path("value").asLong(0);
      // "gte": the store stopped counting at the search's cap
      boolean lowerBound = "gte".equals(hits.path("total").path("relation").asText());
      List<SearchHits.Hit> found = new ArrayList<>();
      for (JsonNode hit : hits.path("hits")) {
        List<Object> sortValues = new ArrayList<>();
        for (JsonNode value : hit.path("sort")) {
          sortValues.add(JSON.treeToValue(value, Object.class));
        }
        String index = hit.path("_index").asText();
        @SuppressWarnings("unchecked")
        Map<String, Object> source = JSON.convertValue(hit.path("_source"), Map.class);
        found.add(
            new SearchHits.Hit(
                ReadModelIndex.callerIndex(index, source),
                ReadModelIndex.callerId(index, hit.path("_id").asText()),
                ReadModelIndex.callerSource(index, source),
                sortValues));
      }
      return new SearchHits(total, found, lowerBound);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unreadable search answer: " + e.getMessage(), e);
    }
  }
}
