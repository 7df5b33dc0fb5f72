package dev.flowpipe.testsupport.v2spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigInteger;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Generates the conformance checks from the spec tables (the web app's {@code V2SpecConformanceTest} on written
 * documents, client-compatibility's {@code V2SpecConformanceOnNodeTest} on a node's real runs): each is a name and a run that answers
 * null when the server did what the table says, or why not. The oracle is the table and the server's own unfiltered
 * answer: a filter's expected items are computed here from all items of the entity, by the operator's meaning.
 */
public final class V2SpecChecks {

  /** One generated check: its name (also the key of a known difference) and a run answering a failure or null. */
  public record Check(String name, Supplier<String> run) {}

  /** The web app under test, over HTTP (with whatever credentials it needs). */
  public interface Api {
    Answer post(String path, String json);

    Answer get(String path);

    /** {@code POST /v2/<entity>/search}, which must answer 200. */
    default JsonNode search(String entity, String request) {
      Answer answer = post("/v2/" + entity + "/search", request);
      if (answer.status() != 200) {
        throw new AssertionError("expected 200 to " + request + ", was " + answer.status() + ": " + answer.body());
      }
      return answer.json();
    }
  }

  /** An answer's status and body. */
  public record Answer(int status, String body) {
    public JsonNode json() {
      return V2SpecChecks.json(body);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ALL = 10_000;

  private final Api app;
  private final V2SpecTable.Common common;
  /** Values of the data for filters the answers do not carry, by "entity.field". */
  private final Map<String, JsonNode> filterSamples;
  /** Values of the data for {name} in paths and bodies. */
  private final Map<String, String> placeholders;
  private final Map<String, List<JsonNode>> allItems = new HashMap<>();

  public V2SpecChecks(Api app, V2SpecTable.Common common, Map<String, JsonNode> filterSamples,
      Map<String, String> placeholders) {
    this.app = app;
    this.common = common;
    this.filterSamples = filterSamples;
    this.placeholders = placeholders;
  }

  public List<Check> forEntity(V2SpecTable table) {
    List<Check> checks = new ArrayList<>();
    String entity = table.entity();
    table.fields().forEach((name, field) -> {
      if (field.required()) {
        checks.add(new Check(entity + " field " + name + " is present",
            () -> presence(items(entity), name, field)));
      }
      checks.add(new Check(entity + " field " + name + " has its type",
          () -> type(items(entity), name, field, table.enums().get(name))));
    });
    table.filters().forEach((name, kind) -> {
      List<String> operators = common.operators().get(kind);
      if (operators == null) {
        throw new IllegalStateException(entity + ": unknown filter kind " + kind);
      }
      checks.add(new Check(entity + " filter " + name + " = value", () -> filter(table, name, "value")));
      for (String operator : operators) {
        if (operator.equals("$exists")) {
          checks.add(new Check(entity + " filter " + name + " $exists true", () -> filter(table, name, "$exists true")));
          checks.add(new Check(entity + " filter " + name + " $exists false", () -> filter(table, name, "$exists false")));
        } else {
          checks.add(new Check(entity + " filter " + name + " " + operator, () -> filter(table, name, operator)));
        }
      }
    });
    table.enums().forEach((name, values) -> {
      for (String value : values) {
        checks.add(new Check(entity + " enum " + name + " = " + value, () -> enumValue(table, name, value)));
      }
    });
    for (String sort : table.sorts()) {
      for (String order : common.sortOrders()) {
        checks.add(new Check(entity + " sort " + sort + " " + order, () -> sort(table, sort, order)));
      }
    }
    checks.add(new Check(entity + " page from", () -> pageFrom(table)));
    checks.add(new Check(entity + " page after walks every item once", () -> pageAfter(table)));
    checks.add(new Check(entity + " page before returns the previous page", () -> pageBefore(table)));
    checks.add(new Check(entity + " page limit", () -> pageLimit(table)));
    checks.add(new Check(entity + " page limit " + common.maxLimit() + " served, one more refused",
        () -> maxLimit(entity)));
    checks.add(new Check(entity + " page cursors match the spec's pattern", () -> cursorFormat(entity)));
    checks.add(new Check(entity + " page fields", () -> pageFields(entity)));
    return checks;
  }

  public List<Check> forAnswer(V2SpecTable.Answer answer) {
    List<Check> checks = new ArrayList<>();
    answer.fields().forEach((name, field) -> {
      if (field.required()) {
        checks.add(new Check(answer.name() + " field " + name + " is present",
            () -> presence(answerItems(answer, null), name, field)));
      }
      checks.add(new Check(answer.name() + " field " + name + " has its type",
          () -> type(answerItems(answer, null), name, field, null)));
    });
    for (String sort : answer.sorts()) {
      for (String order : common.sortOrders()) {
        checks.add(new Check(answer.name() + " sort " + sort + " " + order, () -> {
          List<JsonNode> sorted = answerItems(answer,
              "\"sort\": [{\"field\": \"" + sort + "\", \"order\": \"" + order + "\"}]");
          return ordered(sorted, sort, answer.fields().get(sort).type(), order);
        }));
      }
    }
    if (answer.paged()) {
      checks.add(new Check(answer.name() + " page from", () -> {
        List<JsonNode> all = answerItems(answer, null);
        if (all.size() < 2) {
          return "the data gives fewer than two items";
        }
        List<JsonNode> page = answerItems(answer, "\"page\": {\"from\": 1, \"limit\": 1}");
        return page.equals(all.subList(1, 2)) ? null : "from 1 limit 1 answered " + page + ", not " + all.get(1);
      }));
    }
    return checks;
  }

  // --- fields

  private static String presence(List<JsonNode> items, String name, V2SpecTable.Field field) {
    if (items.isEmpty()) {
      return "the data has no item";
    }
    long missing = items.stream().filter(item -> !item.has(name)).count();
    long nulls = items.stream().filter(item -> item.has(name) && item.get(name).isNull()).count();
    if (missing > 0) {
      return missing + " of " + items.size() + " items lack it" + (field.nullable() ? " (nullable: null expected)" : "");
    }
    return nulls > 0 && !field.nullable() ? nulls + " of " + items.size() + " items have null" : null;
  }

  private static String type(List<JsonNode> items, String name, V2SpecTable.Field field, List<String> enumValues) {
    List<JsonNode> values = items.stream().map(item -> item.get(name)).filter(v -> v != null && !v.isNull()).toList();
    if (values.isEmpty()) {
      return "no item carries a value";
    }
    for (JsonNode value : values) {
      String wrong = wrongType(value, field.type(), enumValues);
      if (wrong != null) {
        return wrong;
      }
    }
    return null;
  }

  private static String wrongType(JsonNode value, String type, List<String> enumValues) {
    boolean ok = switch (type) {
      case "key" -> value.isTextual() && value.asText().matches("-?\\d{1,19}");
      case "string" -> value.isTextual();
      case "integer" -> value.isIntegralNumber();
      case "boolean" -> value.isBoolean();
      case "date-time" -> value.isTextual() && parsesAsDate(value.asText());
      case "enum" -> value.isTextual() && (enumValues == null || enumValues.contains(value.asText()));
      case "object" -> value.isObject();
      case "array" -> value.isArray();
      default -> throw new IllegalStateException("unknown type " + type);
    };
    return ok ? null : value + " is not a " + type + (enumValues == null ? "" : " of " + enumValues);
  }

  private static boolean parsesAsDate(String text) {
    try {
      OffsetDateTime.parse(text);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  // --- filters

  private String filter(V2SpecTable table, String name, String operator) {
    String entity = table.entity();
    V2SpecTable.Field field = table.fields().get(name);
    List<JsonNode> all = items(entity);
    boolean answered = field != null && all.stream().anyMatch(item -> item.hasNonNull(name));
    JsonNode value = answered ? commonValue(all, name) : filterSamples.get(entity + "." + name);
    if (value == null) {
      return "the data has no value for it";
    }
    String type = field != null ? field.type() : typeOf(value);
    JsonNode other = answered ? otherValue(all, name, value) : value;
    String condition;
    Predicate<JsonNode> expected;
    switch (operator) {
      case "value" -> {
        condition = value.toString();
        expected = item -> has(item, name) && compare(item.get(name), value, type) == 0;
      }
      case "$eq" -> {
        condition = "{\"$eq\": " + value + "}";
        expected = item -> has(item, name) && compare(item.get(name), value, type) == 0;
      }
      case "$neq" -> {
        condition = "{\"$neq\": " + value + "}";
        expected = item -> !has(item, name) || compare(item.get(name), value, type) != 0;
      }
      case "$exists true" -> {
        condition = "{\"$exists\": true}";
        expected = item -> has(item, name);
      }
      case "$exists false" -> {
        condition = "{\"$exists\": false}";
        expected = item -> !has(item, name);
      }
      case "$in" -> {
        condition = "{\"$in\": [" + value + ", " + other + "]}";
        expected = item -> has(item, name)
            && (compare(item.get(name), value, type) == 0 || compare(item.get(name), other, type) == 0);
      }
      case "$notIn" -> {
        condition = "{\"$notIn\": [" + value + "]}";
        expected = item -> !has(item, name) || compare(item.get(name), value, type) != 0;
      }
      case "$like" -> {
        String text = value.asText();
        String pattern = text.substring(0, (text.length() + 1) / 2) + "*";
        condition = "{\"$like\": " + JsonNodeFactory.instance.textNode(pattern) + "}";
        expected = item -> has(item, name) && item.get(name).asText().startsWith(pattern.substring(0, pattern.length() - 1));
      }
      case "$gt", "$gte", "$lt", "$lte" -> {
        condition = "{\"" + operator + "\": " + value + "}";
        expected = item -> {
          if (!has(item, name)) {
            return false;
          }
          int c = compare(item.get(name), value, type);
          return switch (operator) {
            case "$gt" -> c > 0;
            case "$gte" -> c >= 0;
            case "$lt" -> c < 0;
            default -> c <= 0;
          };
        };
      }
      default -> throw new IllegalStateException("no check for " + operator);
    }
    Answer answer = app.post("/v2/" + entity + "/search",
        "{\"filter\": {\"" + name + "\": " + condition + "}, \"page\": {\"limit\": " + ALL + "}}");
    if (answer.status() != 200) {
      return "answered " + answer.status() + " to " + condition + ": " + answer.json().path("detail").asText();
    }
    Set<String> found = keys(table, list(answer.json().path("items")));
    Set<String> allKeys = keys(table, all);
    if (!allKeys.containsAll(found)) {
      return condition + " found items that an unfiltered search does not";
    }
    if (!answered) {
      return null; // a filter on what the answers do not carry: accepted, its result within the entity's items
    }
    Set<String> wanted = keys(table, all.stream().filter(expected).toList());
    return found.equals(wanted) ? null : condition + " found " + found + ", the spec's meaning gives " + wanted;
  }

  private String enumValue(V2SpecTable table, String name, String value) {
    String entity = table.entity();
    Answer answer = app.post("/v2/" + entity + "/search",
        "{\"filter\": {\"" + name + "\": \"" + value + "\"}, \"page\": {\"limit\": " + ALL + "}}");
    if (answer.status() != 200) {
      return "answered " + answer.status() + ": " + answer.json().path("detail").asText();
    }
    if (!table.fields().containsKey(name)) {
      return null; // a filter-only enum (an instance's element instances' state): accepted
    }
    Set<String> found = keys(table, list(answer.json().path("items")));
    Set<String> wanted = keys(table, items(entity).stream().filter(item -> value.equals(item.path(name).asText())).toList());
    return found.equals(wanted) ? null : "found " + found + ", items answering " + value + ": " + wanted;
  }

  // --- sorts and pages

  private String sort(V2SpecTable table, String field, String order) {
    String entity = table.entity();
    Answer answer = app.post("/v2/" + entity + "/search", "{\"sort\": [{\"field\": \"" + field + "\", \"order\": \""
        + order + "\"}], \"page\": {\"limit\": " + ALL + "}}");
    if (answer.status() != 200) {
      return "answered " + answer.status() + ": " + answer.json().path("detail").asText();
    }
    List<JsonNode> sorted = list(answer.json().path("items"));
    if (!keys(table, sorted).equals(keys(table, items(entity)))) {
      return "a sorted search answered other items than an unsorted one";
    }
    V2SpecTable.Field spec = table.fields().get(field);
    if (spec == null || sorted.stream().noneMatch(item -> has(item, field))) {
      return "no item carries " + field + " to sort on";
    }
    return ordered(sorted, field, spec.type(), order);
  }

  /** Values in the order asked (enums: each value's items together), items without a value after all others. */
  private static String ordered(List<JsonNode> items, String field, String type, String order) {
    boolean seenMissing = false;
    JsonNode previous = null;
    Set<String> closedGroups = new LinkedHashSet<>();
    for (JsonNode item : items) {
      if (!has(item, field)) {
        seenMissing = true;
        continue;
      }
      JsonNode value = item.get(field);
      if (seenMissing) {
        return "an item with " + field + " " + value + " comes after one without";
      }
      if (previous != null) {
        if (type.equals("enum")) {
          if (!previous.asText().equals(value.asText())) {
            closedGroups.add(previous.asText());
            if (closedGroups.contains(value.asText())) {
              return field + " " + value + " comes apart from the others of its value";
            }
          }
        } else {
          int c = compare(previous, value, type);
          if (order.equals("ASC") ? c > 0 : c < 0) {
            return previous + " before " + value + " in " + order + " order";
          }
        }
      }
      previous = value;
    }
    return null;
  }

  private String pageFrom(V2SpecTable table) {
    List<JsonNode> all = items(table.entity());
    if (all.size() < 3) {
      return "the data gives fewer than three items";
    }
    JsonNode answer = app.search(table.entity(), "{\"page\": {\"from\": 1, \"limit\": 2}}");
    List<JsonNode> page = list(answer.path("items"));
    return page.equals(all.subList(1, 3)) ? null : "from 1 limit 2 answered " + keys(table, page);
  }

  private String pageAfter(V2SpecTable table) {
    List<JsonNode> all = items(table.entity());
    List<JsonNode> walked = new ArrayList<>();
    String after = null;
    for (int pages = 0; pages <= all.size(); pages++) {
      JsonNode answer = app.search(table.entity(), "{\"page\": {\"limit\": 2"
          + (after == null ? "" : ", \"after\": \"" + after + "\"") + "}}");
      List<JsonNode> page = list(answer.path("items"));
      if (page.isEmpty()) {
        break;
      }
      walked.addAll(page);
      after = answer.path("page").path("endCursor").asText();
    }
    return walked.equals(all) ? null : "pages after pages gave " + keys(table, walked) + ", all items are " + keys(table, all);
  }

  private String pageBefore(V2SpecTable table) {
    List<JsonNode> all = items(table.entity());
    if (all.size() < 3) {
      return "the data gives fewer than three items";
    }
    JsonNode first = app.search(table.entity(), "{\"page\": {\"limit\": 2}}");
    JsonNode second = app.search(table.entity(), "{\"page\": {\"limit\": 2, \"after\": \""
        + first.path("page").path("endCursor").asText() + "\"}}");
    JsonNode back = app.search(table.entity(), "{\"page\": {\"limit\": 2, \"before\": \""
        + second.path("page").path("startCursor").asText() + "\"}}");
    return back.path("items").equals(first.path("items")) ? null
        : "before the second page's start answered " + keys(table, list(back.path("items")));
  }

  private String pageLimit(V2SpecTable table) {
    List<JsonNode> all = items(table.entity());
    JsonNode answer = app.search(table.entity(), "{\"page\": {\"limit\": 1}}");
    if (answer.path("items").size() != Math.min(1, all.size())) {
      return "limit 1 answered " + answer.path("items").size() + " items";
    }
    return answer.path("page").path("totalItems").asLong() == all.size() ? null
        : "totalItems " + answer.path("page").path("totalItems") + ", the entity has " + all.size();
  }

  private String maxLimit(String entity) {
    Answer most = app.post("/v2/" + entity + "/search", "{\"page\": {\"limit\": " + common.maxLimit() + "}}");
    Answer beyond = app.post("/v2/" + entity + "/search", "{\"page\": {\"limit\": " + (common.maxLimit() + 1) + "}}");
    if (most.status() != 200) {
      return "limit " + common.maxLimit() + " answered " + most.status();
    }
    return beyond.status() == 400 ? null : "limit " + (common.maxLimit() + 1) + " answered " + beyond.status();
  }

  private String cursorFormat(String entity) {
    Pattern pattern = Pattern.compile(common.cursorPattern());
    JsonNode page = app.search(entity, "{\"page\": {\"limit\": 1}}").path("page");
    for (String cursor : List.of("startCursor", "endCursor")) {
      if (!page.path(cursor).isTextual() || !pattern.matcher(page.path(cursor).asText()).matches()) {
        return cursor + " " + page.path(cursor) + " does not match " + common.cursorPattern();
      }
    }
    return null;
  }

  private String pageFields(String entity) {
    JsonNode page = app.search(entity, "{\"page\": {\"limit\": 1}}").path("page");
    if (!page.path("totalItems").isIntegralNumber()) {
      return "totalItems " + page.path("totalItems");
    }
    if (!page.path("hasMoreTotalItems").isBoolean()) {
      return "hasMoreTotalItems " + page.path("hasMoreTotalItems");
    }
    return null;
  }

  // --- data

  /** Every item of the entity in its default order: the checks compare with all of them, so they must fit one page. */
  private List<JsonNode> items(String entity) {
    return allItems.computeIfAbsent(entity, e -> {
      JsonNode answer = app.search(e, "{\"page\": {\"limit\": " + ALL + "}}");
      if (answer.path("page").path("totalItems").asLong() > ALL) {
        throw new IllegalStateException(e + ": more than " + ALL + " items, the checks need them all in one page");
      }
      return list(answer.path("items"));
    });
  }

  private List<JsonNode> answerItems(V2SpecTable.Answer answer, String extra) {
    String path = fill(answer.path());
    Answer response;
    if (answer.method().equals("GET")) {
      response = app.get(path);
    } else {
      String body = fill(answer.body() == null ? "{}" : answer.body());
      if (extra != null) {
        body = body.equals("{}") ? "{" + extra + "}" : body.substring(0, body.length() - 1) + ", " + extra + "}";
      }
      response = app.post(path, body);
    }
    if (response.status() != 200) {
      throw new AssertionError(answer.name() + " answered " + response.status() + ": " + response.body());
    }
    return list(response.json().path("items"));
  }

  private String fill(String text) {
    String filled = text;
    for (Map.Entry<String, String> value : placeholders.entrySet()) {
      filled = filled.replace("{" + value.getKey() + "}", value.getValue());
    }
    return filled;
  }

  private static boolean has(JsonNode item, String field) {
    return item.hasNonNull(field);
  }

  /** The value of the field most items share but not all (so that $eq and $neq both find some), else any. */
  private static JsonNode commonValue(List<JsonNode> items, String field) {
    Map<JsonNode, Long> counts = new HashMap<>();
    items.stream().map(item -> item.get(field)).filter(v -> v != null && !v.isNull())
        .forEach(v -> counts.merge(v, 1L, Long::sum));
    return counts.entrySet().stream()
        .sorted(Comparator.comparing((Map.Entry<JsonNode, Long> e) -> e.getValue() == items.size())
            .thenComparing(Map.Entry::getValue, Comparator.reverseOrder())
            .thenComparing(e -> e.getKey().toString()))
        .map(Map.Entry::getKey).findFirst().orElse(null);
  }

  private static JsonNode otherValue(List<JsonNode> items, String field, JsonNode value) {
    return items.stream().map(item -> item.get(field)).filter(v -> v != null && !v.isNull() && !v.equals(value))
        .findFirst().orElse(value);
  }

  private static String typeOf(JsonNode value) {
    return value.isBoolean() ? "boolean" : value.isIntegralNumber() ? "integer" : "string";
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(JsonNode a, JsonNode b, String type) {
    Comparable left = comparable(a, type);
    Comparable right = comparable(b, type);
    return left.compareTo(right);
  }

  private static Comparable<?> comparable(JsonNode value, String type) {
    return switch (type) {
      case "key" -> new BigInteger(value.asText());
      case "integer" -> value.asLong();
      case "boolean" -> value.asBoolean();
      case "date-time" -> OffsetDateTime.parse(value.asText()).toInstant();
      default -> value.asText();
    };
  }

  private static Set<String> keys(V2SpecTable table, List<JsonNode> items) {
    Set<String> keys = new LinkedHashSet<>();
    for (JsonNode item : items) {
      keys.add(String.join("/", table.key().stream().map(k -> item.path(k).asText()).toList()));
    }
    return keys;
  }

  private static List<JsonNode> list(JsonNode array) {
    List<JsonNode> items = new ArrayList<>();
    array.forEach(items::add);
    return items;
  }

  public static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException(text, e);
    }
  }
}
