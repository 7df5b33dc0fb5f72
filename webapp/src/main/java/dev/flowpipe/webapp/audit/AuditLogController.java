package dev.flowpipe.webapp.audit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.webapp.api.NotFoundException;
import dev.flowpipe.webapp.query.BadRequestException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The audit log in the shape of Camunda 8.9's {@code POST /v2/audit-logs/search} and {@code GET
 * /v2/audit-logs/{auditLogKey}}: a filter of the entries' fields (a value, or {@code $eq} / {@code $in}; the
 * timestamp also {@code $gt}, {@code $gte}, {@code $lt}, {@code $lte}), a sort and a page by {@code from} and
 * {@code limit}. A field it does not hold is a 400 naming it.
 */
@RestController
@RequestMapping(path = "/v2", produces = MediaType.APPLICATION_JSON_VALUE)
public class AuditLogController {

  private static final Set<String> KEYWORDS = Set.of("auditLogKey", "entityKey", "entityType", "operationType",
      "category", "actorId", "actorType", "result", "processInstanceKey", "batchOperationKey", "batchOperationType");
  private static final Set<String> SORTABLE = Set.of("timestamp", "auditLogKey", "entityType", "operationType",
      "actorId", "result", "processInstanceKey");
  private static final int MAX_LIMIT = 1000;

  private final StoredAuditLog log;

  public AuditLogController(StoredAuditLog log) {
    this.log = log;
  }

  @GetMapping("/audit-logs/{auditLogKey}")
  public Map<String, Object> entry(@PathVariable String auditLogKey) {
    return log.entry(auditLogKey).orElseThrow(() -> new NotFoundException("no audit log entry " + auditLogKey));
  }

  @PostMapping("/audit-logs/search")
  public Map<String, Object> search(@RequestBody(required = false) JsonNode request) {
    JsonNode filter = request == null ? null : request.get("filter");
    List<Object> conditions = new ArrayList<>();
    if (filter != null && !filter.isNull()) {
      if (!filter.isObject()) {
        throw new BadRequestException("filter", "expected an object, was " + filter);
      }
      for (Iterator<Map.Entry<String, JsonNode>> fields = filter.fields(); fields.hasNext(); ) {
        Map.Entry<String, JsonNode> field = fields.next();
        conditions.add(condition(field.getKey(), field.getValue()));
      }
    }
    JsonNode page = request == null ? null : request.get("page");
    int from = pageValue(page, "from", 0);
    int limit = pageValue(page, "limit", 100);
    if (limit > MAX_LIMIT || from + limit > 10_000) {
      throw new BadRequestException("page", "limit 0 to " + MAX_LIMIT + ", from + limit <= 10000; were " + from
          + " and " + limit);
    }
    StoredAuditLog.Page found = log.search(Map.of("bool", Map.of("filter", conditions)),
        sort(request == null ? null : request.get("sort")), from, limit);
    return Map.of("items", found.items(), "page", Map.of("totalItems", found.total()));
  }

  private static Object condition(String field, JsonNode value) {
    String part = "filter." + field;
    if ("timestamp".equals(field)) {
      return timestamp(part, value);
    }
    if (!KEYWORDS.contains(field)) {
      throw new BadRequestException(part, "not a field of the audit log; expected one of " + KEYWORDS
          + " or timestamp");
    }
    if (value.isTextual() || value.isNumber()) {
      return Map.of("term", Map.of(field, value.asText()));
    }
    if (value.isObject()) {
      List<Object> all = new ArrayList<>();
      for (Iterator<Map.Entry<String, JsonNode>> operators = value.fields(); operators.hasNext(); ) {
        Map.Entry<String, JsonNode> operator = operators.next();
        JsonNode operand = operator.getValue();
        switch (operator.getKey()) {
          case "$eq" -> all.add(Map.of("term", Map.of(field, scalar(part + ".$eq", operand))));
          case "$in" -> {
            // an empty list, as Camunda's client sends for a property it does not filter on, asks nothing
            if (!operand.isArray()) {
              throw new BadRequestException(part + ".$in", "expected a list, was " + operand);
            }
            if (!operand.isEmpty()) {
              List<String> values = new ArrayList<>();
              operand.forEach(v -> values.add(scalar(part + ".$in", v)));
              all.add(Map.of("terms", Map.of(field, values)));
            }
          }
          case "$notIn" -> {
            if (!operand.isArray()) {
              throw new BadRequestException(part + ".$notIn", "expected a list, was " + operand);
            }
            List<String> values = new ArrayList<>();
            operand.forEach(v -> values.add(scalar(part + ".$notIn", v)));
            if (!values.isEmpty()) {
              all.add(Map.of("bool", Map.of("must_not", List.of(Map.of("terms", Map.of(field, values))))));
            }
          }
          default -> throw new BadRequestException(part, "unknown operator " + operator.getKey()
              + "; expected $eq, $in or $notIn");
        }
      }
      return Map.of("bool", Map.of("filter", all));
    }
    throw new BadRequestException(part, "expected a string or an object of operators, was " + value);
  }

  private static String scalar(String part, JsonNode value) {
    if (!value.isTextual() && !value.isNumber()) {
      throw new BadRequestException(part, "expected a string, was " + value);
    }
    return value.asText();
  }

  private static Object timestamp(String part, JsonNode value) {
    if (value.isTextual()) {
      return Map.of("term", Map.of("timestamp", instant(part, value)));
    }
    if (!value.isObject()) {
      throw new BadRequestException(part, "expected a date-time or an object of operators, was " + value);
    }
    Map<String, Object> range = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> operators = value.fields(); operators.hasNext(); ) {
      Map.Entry<String, JsonNode> operator = operators.next();
      String bound = switch (operator.getKey()) {
        case "$gt" -> "gt";
        case "$gte" -> "gte";
        case "$lt" -> "lt";
        case "$lte" -> "lte";
        case "$eq" -> "eq";
        default -> throw new BadRequestException(part, "unknown operator " + operator.getKey()
            + "; expected $eq, $gt, $gte, $lt or $lte");
      };
      String at = instant(part + "." + operator.getKey(), operator.getValue());
      if ("eq".equals(bound)) {
        range.put("gte", at);
        range.put("lte", at);
      } else {
        range.put(bound, at);
      }
    }
    return Map.of("range", Map.of("timestamp", range));
  }

  private static String instant(String part, JsonNode value) {
    try {
      return java.time.OffsetDateTime.parse(value.asText()).toInstant().toString();
    } catch (RuntimeException e) {
      throw new BadRequestException(part, "expected an RFC 3339 date-time, was " + value);
    }
  }

  /** {@code [{"field": f, "order": "ASC"|"DESC"}]}; by time then key, oldest first, unless asked. */
  private static List<Map<String, Object>> sort(JsonNode sort) {
    List<Map<String, Object>> order = new ArrayList<>();
    if (sort != null && !sort.isNull()) {
      if (!sort.isArray()) {
        throw new BadRequestException("sort", "expected a list, was " + sort);
      }
      for (int i = 0; i < sort.size(); i++) {
        String field = sort.get(i).path("field").asText();
        if (!SORTABLE.contains(field)) {
          throw new BadRequestException("sort[" + i + "].field", "expected one of " + SORTABLE + ", was '" + field
              + "'");
        }
        String direction = sort.get(i).path("order").asText("ASC");
        if (!direction.equalsIgnoreCase("ASC") && !direction.equalsIgnoreCase("DESC")) {
          throw new BadRequestException("sort[" + i + "].order", "expected ASC or DESC, was '" + direction + "'");
        }
        order.add(Map.of(field, Map.of("order", direction.toLowerCase(java.util.Locale.ROOT))));
      }
    }
    order.add(Map.of("timestamp", Map.of("order", "asc")));
    order.add(Map.of("auditLogKey", Map.of("order", "asc")));
    return order;
  }

  private static int pageValue(JsonNode page, String name, int absent) {
    JsonNode value = page == null ? null : page.get(name);
    if (value == null || value.isNull()) {
      return absent;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0) {
      throw new BadRequestException("page." + name, "expected an integer >= 0, was " + value);
    }
    return value.intValue();
  }
}
