package dev.flowpipe.webapp.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flowpipe.webapp.query.BadRequestException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A v2 statistics request over groups the web app has counted in full: {@code filter} (read by the caller), {@code
 * sort} on the answer's fields, and an offset {@code page} applied to the counted groups. Every bad part is a 400
 * naming it.
 *
 * @param filter the request's filter ({@code {}} without one)
 * @param order the order of the items: the sort entries, then the items' natural tie-breaker
 * @param from the first item of the page
 * @param limit items in the page
 */
record StatisticsRequest(JsonNode filter, Comparator<Map<String, Object>> order, int from, int limit) {

  private static final Set<String> PAGE_PARTS = Set.of("from", "limit");

  /**
   * @param parts the parts the request may have (of {@code filter}, {@code sort}, {@code page})
   * @param sortFields the answer's fields it may sort on
   * @param tieBreaker the field that makes every item's position unique
   * @param maxLimit the largest {@code page.limit}
   */
  static StatisticsRequest parse(JsonNode body, Set<String> parts, Set<String> sortFields, String tieBreaker,
      int defaultLimit, int maxLimit) {
    if (body == null || body.isNull() || body.isMissingNode()) {
      body = JsonNodeFactory.instance.objectNode();
    }
    if (!body.isObject()) {
      throw new BadRequestException("body", "expected a JSON object with " + parts);
    }
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!parts.contains(name)) {
        throw new BadRequestException(name, "unknown part of this statistics request; expected " + parts);
      }
    }
    JsonNode filter = body.path("filter");
    if (!filter.isMissingNode() && !filter.isNull() && !filter.isObject()) {
      throw new BadRequestException("filter", "expected a JSON object, was " + filter);
    }
    JsonNode page = body.path("page");
    if (!page.isMissingNode() && !page.isNull()) {
      if (!page.isObject()) {
        throw new BadRequestException("page", "expected {from, limit}, was " + page);
      }
      for (Iterator<String> names = page.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!PAGE_PARTS.contains(name)) {
          throw new BadRequestException("page." + name, "unknown; these statistics page by offset: " + PAGE_PARTS);
        }
      }
    }
    int limit = integer(page.path("limit"), "page.limit", defaultLimit);
    if (limit > maxLimit) {
      throw new BadRequestException("page.limit", "at most " + maxLimit + ", was " + limit);
    }
    return new StatisticsRequest(filter.isObject() ? filter : JsonNodeFactory.instance.objectNode(),
        order(body.path("sort"), sortFields, tieBreaker), integer(page.path("from"), "page.from", 0), limit);
  }

  /** The page of the counted items, in order, with their total: the v2 {@code {items, page: {totalItems}}}. */
  Map<String, Object> answer(List<Map<String, Object>> counted) {
    List<Map<String, Object>> items = new ArrayList<>(counted);
    items.sort(order);
    // in long: from + limit near Integer.MAX_VALUE would overflow
    List<Map<String, Object>> page =
        items.subList(Math.min(from, items.size()), (int) Math.min((long) from + limit, items.size()));
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("items", List.copyOf(page));
    answer.put("page", Map.of("totalItems", items.size(), "hasMoreTotalItems", false));
    return answer;
  }

  /** A filter field that must be there, as a whole number. */
  static long requiredNumber(JsonNode filter, String field) {
    JsonNode value = filter.path(field);
    if (value.isMissingNode() || value.isNull()) {
      throw new BadRequestException("filter." + field, "required");
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new BadRequestException("filter." + field, "expected a whole number, was " + value);
    }
    return value.longValue();
  }

  /** A filter field that must be there, as a non-empty string. */
  static String requiredText(JsonNode filter, String field) {
    JsonNode value = filter.path(field);
    if (!value.isTextual() || value.asText().isEmpty()) {
      throw new BadRequestException("filter." + field, "required, a non-empty string; was " + value);
    }
    return value.asText();
  }

  /** Refuses filter fields other than these. */
  static void onlyFilterFields(JsonNode filter, Set<String> fields) {
    for (Iterator<String> names = filter.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!fields.contains(name)) {
        throw new BadRequestException("filter." + name, "unknown; this statistics filter takes " + fields);
      }
    }
  }

  private static int integer(JsonNode value, String part, int absent) {
    if (value.isMissingNode() || value.isNull()) {
      return absent;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0) {
      throw new BadRequestException(part, "expected an integer >= 0, was " + value);
    }
    return value.intValue();
  }

  @SuppressWarnings("unchecked")
  private static Comparator<Map<String, Object>> order(JsonNode sort, Set<String> fields, String tieBreaker) {
    if (!sort.isMissingNode() && !sort.isNull() && !sort.isArray()) {
      throw new BadRequestException("sort", "expected an array of {field, order}");
    }
    if (sort.size() > fields.size()) {
      throw new BadRequestException("sort", "at most " + fields.size() + " sort entries, was " + sort.size());
    }
    Comparator<Map<String, Object>> order = Comparator.comparing(item -> 0);
    for (int i = 0; i < sort.size(); i++) {
      JsonNode entry = sort.get(i);
      String field = entry.path("field").asText();
      if (!fields.contains(field)) {
        throw new BadRequestException("sort[" + i + "].field", "expected one of " + fields + ", was '" + field + "'");
      }
      String direction = entry.path("order").asText("asc");
      if (!direction.equalsIgnoreCase("asc") && !direction.equalsIgnoreCase("desc")) {
        throw new BadRequestException("sort[" + i + "].order", "expected asc or desc, was '" + direction + "'");
      }
      // items without the field (a definition the read model no longer holds) come last either way
      Comparator<Map<String, Object>> byField = Comparator.comparing(
          item -> (Comparable<Object>) item.get(field),
          direction.equalsIgnoreCase("desc")
              ? Comparator.nullsLast(Comparator.<Comparable<Object>>reverseOrder())
              : Comparator.nullsLast(Comparator.<Comparable<Object>>naturalOrder()));
      order = order.thenComparing(byField);
    }
    return order.thenComparing(item -> (Comparable<Object>) Objects.requireNonNull(item.get(tieBreaker)),
        Comparator.naturalOrder());
  }
}
