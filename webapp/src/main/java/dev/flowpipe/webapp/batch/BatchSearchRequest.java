package dev.flowpipe.webapp.batch;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.webapp.query.BadRequestException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A search of batches or of their items, in the request shape of Camunda's REST API v2 (8.8): a {@code filter} whose
 * properties are a plain value or an advanced filter ({@code $eq}, {@code $neq}, {@code $exists}, {@code $in},
 * {@code $notIn}, {@code $like}; empty lists are no constraint, as Camunda's client sends them with every filter),
 * {@code sort} ({@code field}, {@code order} ASC or DESC) and {@code page} ({@code from}, {@code limit}). A bad part is
 * a 400 naming it.
 *
 * @param criteria the filter as the store's criteria
 * @param sort the sort, ending with the key so that pages never overlap
 */
record BatchSearchRequest(List<Criterion> criteria, List<SortField> sort, int from, int limit) {

  /** A filterable and sortable field: its v2 name, the stored name and the values it may take (empty: any). */
  private record Field(String name, String stored, Set<String> values, boolean sortable) {}

  private static final int MAX_LIMIT = 1000;
  private static final int MAX_WINDOW = 10_000;

  private static final Map<String, Field> BATCH_FIELDS = fields(
      new Field("batchOperationKey", "batchOperationKey", Set.of(), true),
      new Field("operationType", "batchOperationType", names(BatchOperations.Type.values()), true),
      new Field("state", "state", names(BatchOperations.State.values()), true),
      new Field("startDate", "startDate", null, true),
      new Field("endDate", "endDate", null, true));

  private static final Map<String, Field> ITEM_FIELDS = fields(
      new Field("batchOperationKey", "batchOperationKey", Set.of(), true),
      new Field("itemKey", "itemKey", Set.of(), true),
      new Field("processInstanceKey", "processInstanceKey", Set.of(), true),
      new Field("state", "state", names(BatchOperations.ItemState.values()), true),
      new Field("operationType", "operationType", names(BatchOperations.Type.values()), false));

  /** {@code POST /v2/batch-operations/search}. */
  static BatchSearchRequest ofBatches(JsonNode request) {
    return parse(request, BATCH_FIELDS, "batchOperationKey");
  }

  /** {@code POST /v2/batch-operation-items/search}. */
  static BatchSearchRequest ofItems(JsonNode request) {
    return parse(request, ITEM_FIELDS, "itemKey");
  }

  private static BatchSearchRequest parse(JsonNode request, Map<String, Field> fields, String tieBreaker) {
    if (request != null && !request.isNull() && !request.isObject()) {
      throw new BadRequestException("body", "must be a JSON object, was " + request.getNodeType());
    }
    JsonNode body = request == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : request;
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!Set.of("filter", "sort", "page").contains(name)) {
        throw new BadRequestException(name, "unknown part; expected filter, sort or page");
      }
    }
    return new BatchSearchRequest(criteria(body.get("filter"), fields), sort(body.get("sort"), fields, tieBreaker),
        pageValue(body.path("page"), "from", 0), pageValue(body.path("page"), "limit", 100)).checked();
  }

  private static List<Criterion> criteria(JsonNode filter, Map<String, Field> fields) {
    List<Criterion> criteria = new ArrayList<>();
    if (filter == null || filter.isNull()) {
      return criteria;
    }
    if (!filter.isObject()) {
      throw new BadRequestException("filter", "must be an object, was " + filter.getNodeType());
    }
    for (Iterator<Map.Entry<String, JsonNode>> entries = filter.fields(); entries.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = entries.next();
      Field field = fields.get(entry.getKey());
      String part = "filter." + entry.getKey();
      if (field == null || field.values() == null) {
        throw new BadRequestException(part, "unknown filter field; expected one of " + filterable(fields));
      }
      JsonNode value = entry.getValue();
      if (value.isNull()) {
        continue;
      }
      if (!value.isObject()) {
        criteria.add(new Criterion.Equals(field.stored(), value(field, part, value)));
        continue;
      }
      for (Iterator<Map.Entry<String, JsonNode>> operators = value.fields(); operators.hasNext(); ) {
        Map.Entry<String, JsonNode> operator = operators.next();
        String operatorPart = part + "." + operator.getKey();
        JsonNode operand = operator.getValue();
        switch (operator.getKey()) {
          case "$eq" -> criteria.add(new Criterion.Equals(field.stored(), value(field, operatorPart, operand)));
          case "$neq" -> criteria.add(new Criterion.Not(new Criterion.Equals(field.stored(),
              value(field, operatorPart, operand))));
          case "$exists" -> {
            if (!operand.isBoolean()) {
              throw new BadRequestException(operatorPart, "must be true or false, was " + operand);
            }
            Criterion exists = new Criterion.Exists(field.stored());
            criteria.add(operand.booleanValue() ? exists : new Criterion.Not(exists));
          }
          case "$in", "$notIn" -> {
            if (!operand.isArray()) {
              throw new BadRequestException(operatorPart, "must be an array, was " + operand.getNodeType());
            }
            if (operand.isEmpty()) {
              continue; // no constraint, as in Camunda
            }
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < operand.size(); i++) {
              values.add(value(field, operatorPart + "[" + i + "]", operand.get(i)));
            }
            Criterion oneOf = new Criterion.OneOf(field.stored(), values);
            criteria.add("$in".equals(operator.getKey()) ? oneOf : new Criterion.Not(oneOf));
          }
          case "$like" -> {
            if (!operand.isTextual()) {
              throw new BadRequestException(operatorPart, "must be a string, was " + operand);
            }
            criteria.add(new Criterion.Like(field.stored(), operand.asText()));
          }
          default -> throw new BadRequestException(operatorPart,
              "unknown operator; expected one of $eq $neq $exists $in $notIn $like");
        }
      }
    }
    return criteria;
  }

  /** A value a field may take: a string (a key also as a number), one of the field's values where it names them. */
  private static String value(Field field, String part, JsonNode value) {
    if (!value.isTextual() && !(value.isIntegralNumber() && field.values().isEmpty())) {
      throw new BadRequestException(part, "must be a string, was " + value);
    }
    String text = value.asText();
    if (!field.values().isEmpty() && !field.values().contains(text)) {
      throw new BadRequestException(part, "expected one of " + field.values() + ", was '" + text + "'");
    }
    return text;
  }

  private static List<SortField> sort(JsonNode sort, Map<String, Field> fields, String tieBreaker) {
    List<SortField> sortFields = new ArrayList<>();
    if (sort != null && !sort.isNull()) {
      if (!sort.isArray()) {
        throw new BadRequestException("sort", "must be an array, was " + sort.getNodeType());
      }
      for (int i = 0; i < sort.size(); i++) {
        String part = "sort[" + i + "]";
        JsonNode entry = sort.get(i);
        Field field = fields.get(entry.path("field").asText());
        if (!entry.isObject() || field == null || !field.sortable()) {
          throw new BadRequestException(part + ".field", "expected one of " + fields.values().stream()
              .filter(Field::sortable).map(Field::name).toList() + ", was " + entry.get("field"));
        }
        String order = entry.hasNonNull("order") ? entry.get("order").asText() : "ASC";
        if (!Set.of("ASC", "DESC", "asc", "desc").contains(order)) {
          throw new BadRequestException(part + ".order", "expected ASC or DESC, was '" + order + "'");
        }
        sortFields.add(new SortField(field.stored(), order.equalsIgnoreCase("DESC"), false));
      }
    }
    sortFields.add(SortField.ascending(fields.get(tieBreaker).stored()));
    return sortFields;
  }

  private static int pageValue(JsonNode page, String name, int absent) {
    if (!page.isMissingNode() && !page.isNull() && !page.isObject()) {
      throw new BadRequestException("page", "must be an object, was " + page.getNodeType());
    }
    for (String cursor : List.of("after", "before")) {
      if (page.hasNonNull(cursor)) {
        throw new BadRequestException("page." + cursor, "batch searches page by from and limit, not by cursor");
      }
    }
    JsonNode value = page.path(name);
    if (value.isMissingNode() || value.isNull()) {
      return absent;
    }
    // in long, read from the JSON number itself: asInt() would wrap a huge number to a small one
    long limit = "limit".equals(name) ? MAX_LIMIT : MAX_WINDOW;
    if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0 || value.longValue() > limit) {
      throw new BadRequestException("page." + name, "expected an integer from 0 to " + limit + ", was " + value);
    }
    return value.intValue();
  }

  /** Fails where the page reaches past what the store pages to. */
  private BatchSearchRequest checked() {
    if ((long) from + limit > MAX_WINDOW) {
      throw new BadRequestException("page", "from + limit must be <= " + MAX_WINDOW + "; were " + from + " and "
          + limit);
    }
    return this;
  }

  private static Map<String, Field> fields(Field... fields) {
    Map<String, Field> byName = new LinkedHashMap<>();
    for (Field field : fields) {
      byName.put(field.name(), field);
    }
    return byName;
  }

  private static List<String> filterable(Map<String, Field> fields) {
    return fields.values().stream().filter(field -> field.values() != null).map(Field::name).toList();
  }

  private static Set<String> names(Enum<?>[] values) {
    Set<String> names = new java.util.LinkedHashSet<>();
    for (Enum<?> value : values) {
      names.add(value.name());
    }
    return names;
  }
}
