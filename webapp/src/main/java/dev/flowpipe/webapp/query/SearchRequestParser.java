package dev.flowpipe.webapp.query;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.webapp.config.WebappProperties;
import dev.flowpipe.webapp.consistency.ConsistencyRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.convert.DurationStyle;

/**
 * Reads a search request ({@code {filter, sort, page, consistency}}) for one entity into store criteria, sort keys and
 * a page, checking every part; a bad part is reported by its path in the request, never passed on to the store.
 */
public final class SearchRequestParser {

  private static final Set<String> TOP_LEVEL = Set.of("filter", "sort", "page", "consistency");
  /** The store's window for offset paging (index.max_result_window). */
  private static final int MAX_OFFSET_WINDOW = 10_000;
  /** Operators that take a list; an empty list is no constraint. */
  private static final Set<String> LIST_OPERATORS = Set.of("$in", "$notIn");
  /**
   * Process instances' tags: Zeebe 8.6 has none, so no instance holds a tag; an empty list constrains nothing, a
   * non-empty one (tags the instance must all hold) matches no instance.
   */
  private static final String TAGS = "tags";
  /** The process-definition filter on the latest versions, which the searcher resolves. */
  private static final String LATEST_VERSION = "isLatestVersion";
  /** The process-instance filter by variable name and value, read by {@link VariableFilter}. */
  private static final String VARIABLES = "variables";

  private final WebappProperties.Search limits;
  private final WebappProperties.Consistency consistency;
  private final WebappProperties.Limits budgets;
  private final VariableFilter variables;
  private final ElementInstanceFilter elements;
  private static final String LIMITS = "flowpipe.webapp.limits.";

  public SearchRequestParser(WebappProperties.Search limits, WebappProperties.Consistency consistency,
      WebappProperties.Limits budgets) {
    this.limits = limits;
    this.consistency = consistency;
    this.budgets = budgets;
    this.variables = new VariableFilter(budgets);
    this.elements = new ElementInstanceFilter(budgets);
  }

  /**
   * A parsed request.
   *
   * @param sort the requested keys followed by the entity key, which makes every position unique
   * @param sortFields the API fields of {@code sort}, in the same order
   * @param latestVersion a process- or decision-definition filter's {@code isLatestVersion}, or null: the searcher
   *     adds it, as only the stored definitions tell which are the latest
   * @param requirementsFilter a decision-definition filter's conditions on its DRD ({@code decisionRequirementsName},
   *     {@code decisionRequirementsVersion}) as a DRD filter, or null: the searcher resolves it to DRD keys
   * @param batchFilter a process-instance filter's {@code batchOperationId} condition, or null: the searcher resolves it
   *     to the instances of the batches' items
   */
  public record ParsedSearch(
      List<Criterion> criteria, List<SortField> sort, List<ApiField> sortFields, Page page,
      ConsistencyRequest consistency, Boolean latestVersion, JsonNode requirementsFilter, JsonNode batchFilter) {}

  public ParsedSearch parse(Entity entity, JsonNode request) {
    if (request == null || request.isNull() || request.isMissingNode()) {
      request = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    }
    if (!request.isObject()) {
      throw new BadRequestException("body", "expected a JSON object {filter, sort, page}, was " + kind(request));
    }
    for (Iterator<String> names = request.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!TOP_LEVEL.contains(name)) {
        throw new BadRequestException(name, "unknown part of a search request; expected " + TOP_LEVEL);
      }
    }
    Boolean latestVersion = latestVersion(entity, request.path("filter"));
    List<Criterion> criteria = filter(entity, request.path("filter"));
    List<ApiField> sortFields = new ArrayList<>();
    List<SortField> sort = sort(entity, request.path("sort"), sortFields);
    Page page = page(request.path("page"), sortFields);
    return new ParsedSearch(criteria, sort, sortFields, page, consistency(request.path("consistency")), latestVersion,
        requirementsFilter(entity, request.path("filter")), batchFilter(entity, request.path("filter")));
  }

  /** The process-instance filter on the batch operations that touched an instance (their items name it). */
  public static final String BATCH_OPERATION = "batchOperationId";

  /** A process-instance filter's {@code batchOperationId} condition, or null. */
  private static JsonNode batchFilter(Entity entity, JsonNode filter) {
    return entity == Entity.PROCESS_INSTANCES && filter.isObject() && filter.has(BATCH_OPERATION)
        ? filter.get(BATCH_OPERATION) : null;
  }

  /**
   * A decision definition's fields that are its DRD's (8.9): the decision-definition field and the DRD field it is.
   * Filters on them become a DRD search and answers read the DRD (so decisions written before the writer copied them
   * are found and answered too).
   */
  public static final Map<String, String> REQUIREMENTS_FIELDS =
      Map.of("decisionRequirementsName", "decisionRequirementsName", "decisionRequirementsVersion", "version");

  /**
   * Sorts on those fields use the copies the writer keeps on the decision's document (decisions written before it did
   * lack them and come last).
   */
  private static final Map<String, ApiField> REQUIREMENTS_SORTS = Map.of(
      "decisionRequirementsName", ApiField.of("decisionRequirementsName", "decisionRequirementsName", FieldType.STRING),
      "decisionRequirementsVersion",
      ApiField.of("decisionRequirementsVersion", "decisionRequirementsVersion", FieldType.INTEGER));

  /** A decision-definition filter's conditions on its DRD, as a DRD filter, or null. */
  private static JsonNode requirementsFilter(Entity entity, JsonNode filter) {
    if (entity != Entity.DECISION_DEFINITIONS || !filter.isObject()) {
      return null;
    }
    var drdFilter = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    REQUIREMENTS_FIELDS.forEach((name, drdName) -> {
      if (filter.has(name)) {
        drdFilter.set(drdName, filter.get(name));
      }
    });
    return drdFilter.isEmpty() ? null : drdFilter;
  }

  /** Process and decision definitions take {@code isLatestVersion} (decision definitions since 8.9). */
  private static boolean hasVersions(Entity entity) {
    return entity == Entity.PROCESS_DEFINITIONS || entity == Entity.DECISION_DEFINITIONS;
  }

  /** A process- or decision-definition filter's {@code isLatestVersion} (true or false), or null. */
  private static Boolean latestVersion(Entity entity, JsonNode filter) {
    JsonNode value = filter.path(LATEST_VERSION);
    if (!hasVersions(entity) || value.isMissingNode()) {
      return null;
    }
    if (!value.isBoolean()) {
      throw new BadRequestException("filter." + LATEST_VERSION, "expected true or false, was " + value);
    }
    return value.booleanValue();
  }

  private List<Criterion> filter(Entity entity, JsonNode filter) {
    if (filter.isMissingNode() || filter.isNull()) {
      return new ArrayList<>();
    }
    LimitExceededException.check("filter", "field conditions, $or branches counted together",
        LIMITS + "max-filter-conditions", budgets.maxFilterConditions(), conditionCount(filter));
    return conditions(entity, filter, "filter", true);
  }

  /** The criteria of a filter object: every field condition, and an {@code $or} of alternative filter objects. */
  private List<Criterion> conditions(Entity entity, JsonNode filter, String path, boolean orAllowed) {
    if (!filter.isObject()) {
      throw new BadRequestException(path, "expected an object of field conditions, was " + kind(filter));
    }
    List<Criterion> criteria = new ArrayList<>();
    boolean instances = entity == Entity.PROCESS_INSTANCES;
    if (instances) {
      criteria.addAll(elements.criteria(path, filter));
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = filter.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String part = path + "." + entry.getKey();
      if (entry.getKey().equals("$or") && entry.getValue().isArray() && entry.getValue().isEmpty()) {
        continue; // Camunda's 8.8 client sends it with every filter; Camunda applies it only when non-empty
      }
      if (instances && ElementInstanceFilter.FIELDS.contains(entry.getKey())) {
        continue; // read above, together
      }
      if (hasVersions(entity) && entry.getKey().equals(LATEST_VERSION)) {
        if (!orAllowed) {
          throw new BadRequestException(part, "isLatestVersion is taken beside $or, not inside it");
        }
        continue; // read by latestVersion
      }
      if (entity == Entity.DECISION_DEFINITIONS && REQUIREMENTS_FIELDS.containsKey(entry.getKey())) {
        if (!orAllowed) {
          throw new BadRequestException(part, entry.getKey() + " is taken beside $or, not inside it");
        }
        continue; // read by requirementsFilter
      }
      if (instances && entry.getKey().equals(BATCH_OPERATION)) {
        if (!orAllowed) {
          throw new BadRequestException(part, BATCH_OPERATION + " is taken beside $or, not inside it");
        }
        continue; // read by batchFilter
      }
      if (instances && entry.getKey().equals(TAGS)) {
        criteria.addAll(tags(part, entry.getValue()));
        continue;
      }
      if (entry.getKey().equals("$or")) {
        if (!orAllowed) {
          throw new BadRequestException(part, "a nested $or is not supported; an $or item holds field conditions");
        }
        criteria.add(anyOf(entity, part, entry.getValue()));
        continue;
      }
      if (instances && entry.getKey().equals(VARIABLES)) {
        criteria.addAll(variables.criteria(part, entry.getValue()));
        continue;
      }
      ApiField field = field(entity, entry.getKey(), part, "filtered");
      if (!field.type().filterable()) {
        throw new BadRequestException(part, "free text cannot be filtered on");
      }
      JsonNode condition = entry.getValue();
      if (condition.isObject()) {
        if (condition.isEmpty()) {
          throw new BadRequestException(part, "an empty condition; use a value or operators such as $eq");
        }
        for (Iterator<Map.Entry<String, JsonNode>> ops = condition.fields(); ops.hasNext(); ) {
          Map.Entry<String, JsonNode> op = ops.next();
          if (LIST_OPERATORS.contains(op.getKey()) && op.getValue().isArray() && op.getValue().isEmpty()) {
            continue; // as in Camunda: an empty $in/$notIn is no constraint (its client sends them with every $eq)
          }
          criteria.add(operator(field, part + "." + op.getKey(), op.getKey(), op.getValue()));
        }
      } else {
        criteria.add(operator(field, part, "$eq", condition));
      }
    }
    return criteria;
  }

  /** {@code tags}: an array of tag strings; empty, no constraint; else no instance of Zeebe 8.6 holds them. */
  private List<Criterion> tags(String part, JsonNode tags) {
    if (!tags.isArray()) {
      throw new BadRequestException(part, "expected an array of tags, was " + tags);
    }
    LimitExceededException.check(part, "values", LIMITS + "max-list-values", budgets.maxListValues(), tags.size());
    for (int i = 0; i < tags.size(); i++) {
      if (!tags.get(i).isTextual()) {
        throw new BadRequestException(part + "[" + i + "]", "expected a tag (a string), was " + tags.get(i));
      }
    }
    // every instance has a key: "none has one" matches no instance
    return tags.isEmpty() ? List.of() : List.of(new Criterion.Not(new Criterion.Exists("key")));
  }

  /** The field conditions of a filter object and of its {@code $or} branches, before anything else is read. */
  private static int conditionCount(JsonNode filter) {
    int count = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it = filter.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      if (entry.getKey().equals("$or") && entry.getValue().isArray()) {
        for (JsonNode branch : entry.getValue()) {
          count += branch.size();
        }
      } else if (entry.getKey().equals(VARIABLES) && entry.getValue().isArray()) {
        count += entry.getValue().size(); // each {name, value} is a condition of its own
      } else {
        count++;
      }
    }
    return count;
  }

  private Criterion anyOf(Entity entity, String part, JsonNode alternatives) {
    if (!alternatives.isArray() || alternatives.isEmpty()) {
      throw new BadRequestException(part, "expected a non-empty array of filter objects, was " + alternatives);
    }
    LimitExceededException.check(part, "filter objects in $or", LIMITS + "max-or-branches", budgets.maxOrBranches(),
        alternatives.size());
    List<List<Criterion>> groups = new ArrayList<>();
    for (int i = 0; i < alternatives.size(); i++) {
      groups.add(conditions(entity, alternatives.get(i), part + "[" + i + "]", false));
    }
    return new Criterion.AnyOf(groups);
  }

  private static ApiField field(Entity entity, String name, String part, String use) {
    return entity.field(name).orElseThrow(() -> new BadRequestException(part, entity.notHeld().contains(name)
        ? "'" + name + "' is a field of Camunda's REST API v2 that this read model does not hold, so it cannot be " + use
        : "unknown field of " + entity.path() + names(entity)));
  }

  private Criterion operator(ApiField field, String part, String operator, JsonNode operand) {
    if (field.type() == FieldType.PRESENCE) {
      return presence(field, part, operator, operand);
    }
    String stored = field.searched();
    return switch (operator) {
      case "$eq" -> oneOf(stored, values(field, part, operand));
      case "$neq" -> new Criterion.Not(oneOf(stored, values(field, part, operand)));
      case "$exists" -> {
        if (!operand.isBoolean()) {
          throw new BadRequestException(part, "expected true or false, was " + operand);
        }
        Criterion exists = new Criterion.Exists(stored);
        yield operand.booleanValue() ? exists : new Criterion.Not(exists);
      }
      case "$in" -> oneOf(stored, valuesOfEach(field, part, operand));
      case "$notIn" -> new Criterion.Not(oneOf(stored, valuesOfEach(field, part, operand)));
      case "$like" -> {
        if (!field.type().textual()) {
          throw new BadRequestException(part, "$like applies to string fields; " + field.name() + " is not one");
        }
        if (!operand.isTextual()) {
          throw new BadRequestException(part, "expected a pattern string (* any characters, ? one), was " + operand);
        }
        checkLength(part, operand);
        // a closed set is matched on the API's names, which need not be the stored ones
        yield field.vocabulary() == null
            ? new Criterion.Like(stored, operand.asText())
            : new Criterion.OneOf(stored, List.copyOf(field.vocabulary().storedMatching(operand.asText())));
      }
      case "$gt", "$gte", "$lt", "$lte" -> {
        if (!field.type().ordered()) {
          throw new BadRequestException(
              part, operator + " applies to keys, numbers and dates; " + field.name() + " is not one");
        }
        Object bound = values(field, part, operand).getFirst();
        yield switch (operator) {
          case "$gt" -> new Criterion.Range(stored, bound, null, null, null);
          case "$gte" -> new Criterion.Range(stored, null, bound, null, null);
          case "$lt" -> new Criterion.Range(stored, null, null, bound, null);
          default -> new Criterion.Range(stored, null, null, null, bound);
        };
      }
      default ->
          throw new BadRequestException(
              part, "unknown operator; expected one of $eq $neq $exists $in $notIn $like $gt $gte $lt $lte");
    };
  }

  /** A value that stands for one stored value is an equality; a name of a closed set may stand for several, or none. */
  private static Criterion oneOf(String stored, List<Object> values) {
    return values.size() == 1 ? new Criterion.Equals(stored, values.getFirst()) : new Criterion.OneOf(stored, values);
  }

  /** true: the stored field has a value; false: it has none. */
  private static Criterion presence(ApiField field, String part, String operator, JsonNode operand) {
    if (!operator.equals("$eq") && !operator.equals("$neq")) {
      throw new BadRequestException(part, field.name() + " takes true or false (or $eq, $neq)");
    }
    if (!operand.isBoolean()) {
      throw new BadRequestException(part, "expected true or false, was " + operand);
    }
    Criterion exists = new Criterion.Exists(field.searched());
    return operand.booleanValue() == operator.equals("$eq") ? exists : new Criterion.Not(exists);
  }

  private List<Object> valuesOfEach(ApiField field, String part, JsonNode operand) {
    if (!operand.isArray() || operand.isEmpty()) {
      throw new BadRequestException(part, "expected a non-empty array of values, was " + operand);
    }
    LimitExceededException.check(part, "values", LIMITS + "max-list-values", budgets.maxListValues(), operand.size());
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < operand.size(); i++) {
      values.addAll(values(field, part + "[" + i + "]", operand.get(i)));
    }
    return values;
  }

  private List<Object> values(ApiField field, String part, JsonNode value) {
    checkLength(part, value);
    try {
      return field.storedValues(value);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(part, e.getMessage());
    }
  }

  private void checkLength(String part, JsonNode value) {
    if (value.isTextual()) {
      LimitExceededException.check(part, "characters in a filter value", LIMITS + "max-value-length",
          budgets.maxValueLength(), value.asText().length());
    }
  }

  private List<SortField> sort(Entity entity, JsonNode sort, List<ApiField> sortFields) {
    List<SortField> keys = new ArrayList<>();
    if (!sort.isMissingNode() && !sort.isNull()) {
      if (!sort.isArray()) {
        throw new BadRequestException("sort", "expected an array of {field, order}, was " + kind(sort));
      }
      LimitExceededException.check("sort", "sort entries", LIMITS + "max-sort-fields", budgets.maxSortFields(),
          sort.size());
      for (int i = 0; i < sort.size(); i++) {
        String part = "sort[" + i + "]";
        JsonNode item = sort.get(i);
        if (!item.isObject() || !item.path("field").isTextual()) {
          throw new BadRequestException(part + ".field", "expected {\"field\": name, \"order\": \"asc\"|\"desc\"}");
        }
        for (Iterator<String> names = item.fieldNames(); names.hasNext(); ) {
          String name = names.next();
          if (!name.equals("field") && !name.equals("order")) {
            throw new BadRequestException(part + "." + name, "unknown; a sort item has field and order");
          }
        }
        String name = item.get("field").asText();
        ApiField field = entity == Entity.DECISION_DEFINITIONS && REQUIREMENTS_SORTS.containsKey(name)
            ? REQUIREMENTS_SORTS.get(name) : field(entity, name, part + ".field", "sorted on");
        if (!field.type().sortable() || entity.filterOnly().contains(field)) {
          throw new BadRequestException(part + ".field", "'" + name + "' cannot be sorted on");
        }
        boolean descending = descending(part + ".order", item.path("order"));
        if (sortFields.contains(field)) {
          throw new BadRequestException(part + ".field", "'" + name + "' is sorted on twice");
        }
        sortFields.add(field);
        keys.add(new SortField(field.sortedBy(), descending, false));
      }
    }
    for (ApiField unique : entity.uniqueOrder()) {
      // the key is unique: it makes every position in the order unique, so cursors never skip or repeat
      if (!sortFields.contains(unique)) {
        sortFields.add(unique);
        keys.add(SortField.ascending(unique.sortedBy()));
      }
    }
    return keys;
  }

  private static boolean descending(String part, JsonNode order) {
    if (order.isMissingNode() || order.isNull()) {
      return false;
    }
    if (order.isTextual() && order.asText().equalsIgnoreCase("asc")) {
      return false;
    }
    if (order.isTextual() && order.asText().equalsIgnoreCase("desc")) {
      return true;
    }
    throw new BadRequestException(part, "expected \"asc\" or \"desc\", was " + order);
  }

  private Page page(JsonNode page, List<ApiField> sortFields) {
    if (page.isMissingNode() || page.isNull()) {
      return new Page(limits.defaultPageSize(), 0, null, null);
    }
    if (!page.isObject()) {
      throw new BadRequestException("page", "expected {from | after | before, limit}, was " + kind(page));
    }
    int modes = 0;
    for (Iterator<String> names = page.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      switch (name) {
        case "from", "after", "before" -> modes++;
        case "limit" -> {}
        default -> throw new BadRequestException("page." + name, "unknown; a page has from, after, before and limit");
      }
    }
    if (modes > 1) {
      throw new BadRequestException("page", "give one of from, after and before, not several");
    }
    int limit = limits.defaultPageSize();
    if (page.has("limit")) {
      JsonNode value = page.get("limit");
      if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0
          || value.intValue() > limits.maxPageSize()) {
        throw new BadRequestException("page.limit", "expected an integer 0 to " + limits.maxPageSize() + ", was " + value);
      }
      limit = value.intValue();
    }
    if (page.has("from")) {
      JsonNode value = page.get("from");
      if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0) {
        throw new BadRequestException("page.from", "expected an integer >= 0, was " + value);
      }
      // in long: an int sum near Integer.MAX_VALUE would overflow to a negative and pass
      long end = (long) value.intValue() + limit;
      if (end > MAX_OFFSET_WINDOW) {
        throw new BadRequestException(
            "page.from", "from + limit must be <= " + MAX_OFFSET_WINDOW + " (use after/before cursors to go further), was "
                + end);
      }
      return new Page(limit, value.intValue(), null, null);
    }
    if (page.has("after")) {
      return new Page(limit, 0, cursor("page.after", page.get("after"), sortFields), null);
    }
    if (page.has("before")) {
      return new Page(limit, 0, null, cursor("page.before", page.get("before"), sortFields));
    }
    return new Page(limit, 0, null, null);
  }

  private static List<Object> cursor(String part, JsonNode value, List<ApiField> sortFields) {
    if (!value.isTextual()) {
      throw new BadRequestException(part, "expected a cursor string from an earlier answer, was " + value);
    }
    List<Object> sortValues;
    try {
      sortValues = Cursor.decode(value.asText());
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(part, e.getMessage());
    }
    if (sortValues == null || sortValues.size() != sortFields.size()) {
      throw new BadRequestException(part, "the cursor belongs to another sort order than this request's");
    }
    for (int i = 0; i < sortFields.size(); i++) {
      if (!sortFields.get(i).sortType().acceptsSortValue(sortValues.get(i))) {
        throw new BadRequestException(part, "the cursor belongs to another sort order than this request's");
      }
    }
    return sortValues;
  }

  private ConsistencyRequest consistency(JsonNode request) {
    if (request.isMissingNode() || request.isNull()) {
      return null;
    }
    if (!request.isObject()) {
      throw new BadRequestException("consistency", "expected {processInstanceKey, positions, timeout}, was " + kind(request));
    }
    Long processInstanceKey = null;
    List<ConsistencyRequest.PartitionPosition> positions = new ArrayList<>();
    Duration timeout = consistency.defaultTimeout();
    for (Iterator<Map.Entry<String, JsonNode>> it = request.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String part = "consistency." + entry.getKey();
      JsonNode value = entry.getValue();
      switch (entry.getKey()) {
        case "processInstanceKey" -> {
          try {
            processInstanceKey = (Long) FieldType.KEY.storedValue(value);
          } catch (IllegalArgumentException e) {
            throw new BadRequestException(part, e.getMessage());
          }
        }
        case "positions" -> {
          if (!value.isArray() || value.isEmpty()) {
            throw new BadRequestException(part, "expected a non-empty array of {partitionId, position}, was " + value);
          }
          LimitExceededException.check(part, "positions", LIMITS + "max-consistency-positions",
              budgets.maxConsistencyPositions(), value.size());
          for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            if (!item.path("partitionId").canConvertToInt() || !item.path("partitionId").isIntegralNumber()
                || item.path("partitionId").intValue() < 1
                || !item.path("position").isIntegralNumber() || item.path("position").longValue() < 0) {
              throw new BadRequestException(
                  part + "[" + i + "]", "expected {\"partitionId\": >= 1, \"position\": >= 0}, was " + item);
            }
            positions.add(
                new ConsistencyRequest.PartitionPosition(item.get("partitionId").intValue(), item.get("position").longValue()));
          }
        }
        case "timeout" -> {
          try {
            timeout = DurationStyle.detectAndParse(value.asText());
          } catch (IllegalArgumentException e) {
            throw new BadRequestException(part, "expected a duration such as \"2s\" or \"PT2S\", was " + value);
          }
          if (!value.isTextual() || timeout.isNegative()) {
            throw new BadRequestException(part, "expected a duration such as \"2s\" or \"PT2S\", was " + value);
          }
          if (timeout.compareTo(consistency.maxTimeout()) > 0) {
            timeout = consistency.maxTimeout();
          }
        }
        default ->
            throw new BadRequestException(part, "unknown; consistency has processInstanceKey, positions and timeout");
      }
    }
    if (processInstanceKey == null && positions.isEmpty()) {
      throw new BadRequestException("consistency", "name a processInstanceKey or positions to wait for");
    }
    return new ConsistencyRequest(processInstanceKey, positions, timeout);
  }

  private static String names(Entity entity) {
    return "; fields: " + entity.fields().stream().map(ApiField::name).toList();
  }

  private static String kind(JsonNode node) {
    return node.getNodeType().name().toLowerCase();
  }
}
