package dev.flowpipe.webapp.heatmap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.webapp.api.SearchAnswer;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.query.Entity;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where time goes in a process: the p50 and p95 durations of each element's completed element instances that ended
 * within a window, read from the element instances' start and end dates (the read model keeps no duration field).
 * Read with the v2 element-instance search, newest first in cursor pages of 10,000, up to {@code maxSample} element
 * instances: a busier window is answered from its newest ones, and says so ({@code sampled}).
 */
public final class ElementDurations {

  private static final Set<String> REQUEST_PARTS = Set.of("from", "to");
  private static final int PAGE = 10_000;

  private final SearchService search;
  private final Clock clock;
  private final Duration defaultWindow;
  private final int maxSample;

  public ElementDurations(SearchService search, Clock clock, Duration defaultWindow, int maxSample) {
    this.search = search;
    this.clock = clock;
    this.defaultWindow = defaultWindow;
    this.maxSample = maxSample;
  }

  /** {@code request}: {@code {from?, to?}} (ISO-8601 with offset; default: the last {@code defaultWindow}). */
  public Map<String, Object> of(String processDefinitionKey, JsonNode request) {
    Object key = key(processDefinitionKey);
    if (request != null && !request.isNull() && !request.isMissingNode() && !request.isObject()) {
      throw new BadRequestException("body", "expected a JSON object {from, to}");
    }
    if (request != null && request.isObject()) {
      for (Iterator<String> names = request.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!REQUEST_PARTS.contains(name)) {
          throw new BadRequestException(name, "unknown part of a durations request; expected " + REQUEST_PARTS);
        }
      }
    }
    Instant to = instant(request, "to", clock.instant());
    Instant from = instant(request, "from", to.minus(defaultWindow));
    if (!from.isBefore(to)) {
      throw new BadRequestException("from", "must be before to (" + to + "), was " + from);
    }
    ObjectNode filter = JsonNodeFactory.instance.objectNode();
    filter.put("processDefinitionKey", String.valueOf(key));
    filter.put("state", "COMPLETED");
    filter.putObject("endDate").put("$gte", from.toString()).put("$lt", to.toString());

    Map<String, List<Long>> byElement = new TreeMap<>();
    int read = 0;
    long total = 0;
    String after = null;
    while (read < maxSample) {
      ObjectNode paged = JsonNodeFactory.instance.objectNode();
      paged.set("filter", filter);
      paged.putArray("sort").addObject().put("field", "endDate").put("order", "desc");
      ObjectNode page = paged.putObject("page").put("limit", Math.min(PAGE, maxSample - read));
      if (after != null) {
        page.put("after", after);
      }
      SearchAnswer answer = search.search(Entity.ELEMENT_INSTANCES, paged);
      total = answer.page().totalItems();
      for (Map<String, Object> item : answer.items()) {
        Object start = item.get("startDate");
        Object end = item.get("endDate");
        if (start != null && end != null) {
          long millis = Duration.between(Instant.parse(start.toString()), Instant.parse(end.toString())).toMillis();
          byElement.computeIfAbsent(String.valueOf(item.get("elementId")), id -> new ArrayList<>()).add(millis);
        }
      }
      read += answer.items().size();
      after = answer.page().endCursor();
      if (answer.items().size() < page.path("limit").asInt() || after == null) {
        break;
      }
    }
    List<Map<String, Object>> items = new ArrayList<>();
    byElement.forEach((elementId, durations) -> {
      durations.sort(Comparator.naturalOrder());
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("elementId", elementId);
      item.put("count", durations.size());
      item.put("p50Millis", percentile(durations, 50));
      item.put("p95Millis", percentile(durations, 95));
      item.put("maxMillis", durations.getLast());
      items.add(item);
    });
    items.sort(Comparator.comparingLong((Map<String, Object> item) -> (Long) item.get("p95Millis")).reversed());
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("items", items);
    answer.put("from", from.toString());
    answer.put("to", to.toString());
    answer.put("sampled", total > read);
    answer.put("elementInstances", total);
    return answer;
  }

  /** The nearest-rank percentile of sorted values: the smallest value at least {@code p} percent of them are at or below. */
  static long percentile(List<Long> sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }

  // a path names one resource: a positive key (a filter may name -1, the key Camunda answers where there is none)
  private static Object key(String text) {
    return dev.flowpipe.webapp.operations.OperationRequests.key("processDefinitionKey", text);
  }

  private static Instant instant(JsonNode request, String part, Instant otherwise) {
    JsonNode value = request == null ? null : request.get(part);
    if (value == null || value.isNull()) {
      return otherwise;
    }
    if (!value.isTextual()) {
      throw new BadRequestException(part, "expected an ISO-8601 date-time with offset, was " + value);
    }
    try {
      return OffsetDateTime.parse(value.asText()).toInstant();
    } catch (DateTimeParseException e) {
      throw new BadRequestException(part, "expected an ISO-8601 date-time with offset, was '" + value.asText() + "'");
    }
  }
}
