package dev.flowpipe.webapp.query;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.index.VariableEntries;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.webapp.config.WebappProperties;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The process-instance filter {@code variables: [{name, value}, ...]} of Camunda's REST API v2: an instance matches
 * when, for every item, one of its variables (of any scope) has that name and a value that meets the item's condition.
 * The value is the variable's JSON text ({@code "\"gold\""} for the string gold), given as a string ({@code $eq}) or
 * with the operators of a string filter. Read into criteria on the instance's {@link VariableEntries} (ADR 15):
 * <ul>
 *   <li>{@code $eq}, {@code $in}: the entry {@code name=value} (one of them);</li>
 *   <li>{@code $like}: the entries of the name whose value part matches the pattern;</li>
 *   <li>{@code $neq}, {@code $notIn}: a variable of that name, and no entry of the name with the value(s);</li>
 *   <li>{@code $exists}: true, a variable of that name; false, none.</li>
 * </ul>
 * Where two scopes hold the same name with different values, {@code $neq} and {@code $notIn} are read per instance:
 * an instance holding the excluded value in any scope does not match.
 */
final class VariableFilter {

  private static final String FIELD = VariableEntries.FIELD;

  private static final String LIMITS = "flowpipe.webapp.limits.";

  private final WebappProperties.Limits budgets;

  VariableFilter(WebappProperties.Limits budgets) {
    this.budgets = budgets;
  }

  /** The criteria of the filter at {@code part}; none for an empty list (what Camunda's client sends by default). */
  List<Criterion> criteria(String part, JsonNode items) {
    if (!items.isArray()) {
      throw new BadRequestException(part, "expected an array of {\"name\": ..., \"value\": ...}, was " + items);
    }
    List<Criterion> criteria = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      item(part + "[" + i + "]", items.get(i), criteria);
    }
    return criteria;
  }

  private void item(String part, JsonNode item, List<Criterion> criteria) {
    if (!item.isObject()) {
      throw new BadRequestException(part, "expected {\"name\": ..., \"value\": ...}, was " + item);
    }
    for (Iterator<String> names = item.fieldNames(); names.hasNext(); ) {
      String key = names.next();
      if (!key.equals("name") && !key.equals("value")) {
        throw new BadRequestException(part + "." + key, "unknown; a variable filter has name and value");
      }
    }
    JsonNode nameNode = item.path("name");
    if (!nameNode.isTextual() || nameNode.asText().isEmpty()) {
      throw new BadRequestException(part + ".name", "expected a variable name (a non-empty string), was " + nameNode);
    }
    String name = nameNode.asText();
    check(part + ".name", nameNode);
    JsonNode value = item.path("value");
    if (value.isMissingNode() || value.isNull()) {
      throw new BadRequestException(part + ".value",
          "expected the variable's value as JSON text (e.g. \"\\\"gold\\\"\" or \"42\"), or operators such as $eq");
    }
    if (!value.isObject()) {
      criteria.add(new Criterion.Equals(FIELD, VariableEntries.entry(name, text(part + ".value", value))));
      return;
    }
    if (value.isEmpty()) {
      throw new BadRequestException(part + ".value", "an empty condition; use a value or operators such as $eq");
    }
    for (Iterator<Map.Entry<String, JsonNode>> ops = value.fields(); ops.hasNext(); ) {
      Map.Entry<String, JsonNode> op = ops.next();
      String opPart = part + ".value." + op.getKey();
      JsonNode operand = op.getValue();
      if ((op.getKey().equals("$in") || op.getKey().equals("$notIn")) && operand.isArray() && operand.isEmpty()) {
        continue; // as elsewhere: an empty list is no constraint (Camunda's client sends them with every $eq)
      }
      Criterion named = new Criterion.Like(FIELD, VariableEntries.namePrefixAsPattern(name) + "*");
      switch (op.getKey()) {
        case "$eq" -> criteria.add(new Criterion.Equals(FIELD, VariableEntries.entry(name, text(opPart, operand))));
        case "$neq" -> {
          criteria.add(named);
          criteria.add(new Criterion.Not(new Criterion.Equals(FIELD, VariableEntries.entry(name, text(opPart, operand)))));
        }
        case "$in" -> criteria.add(new Criterion.OneOf(FIELD, entries(name, opPart, operand)));
        case "$notIn" -> {
          criteria.add(named);
          criteria.add(new Criterion.Not(new Criterion.OneOf(FIELD, entries(name, opPart, operand))));
        }
        case "$like" -> criteria.add(
            new Criterion.Like(FIELD, VariableEntries.namePrefixAsPattern(name) + text(opPart, operand)));
        case "$exists" -> {
          if (!operand.isBoolean()) {
            throw new BadRequestException(opPart, "expected true or false, was " + operand);
          }
          criteria.add(operand.booleanValue() ? named : new Criterion.Not(named));
        }
        default -> throw new BadRequestException(opPart,
            "unknown operator for a variable's value; expected one of $eq $neq $exists $in $notIn $like");
      }
    }
  }

  private List<Object> entries(String name, String part, JsonNode operand) {
    if (!operand.isArray()) {
      throw new BadRequestException(part, "expected an array of values (JSON text), was " + operand);
    }
    LimitExceededException.check(part, "values", LIMITS + "max-list-values", budgets.maxListValues(), operand.size());
    List<Object> entries = new ArrayList<>();
    for (int i = 0; i < operand.size(); i++) {
      entries.add(VariableEntries.entry(name, text(part + "[" + i + "]", operand.get(i))));
    }
    return entries;
  }

  private String text(String part, JsonNode value) {
    if (!value.isTextual()) {
      throw new BadRequestException(part,
          "expected the value as JSON text in a string (e.g. \"\\\"gold\\\"\" or \"42\"), was " + value);
    }
    check(part, value);
    return value.asText();
  }

  private void check(String part, JsonNode value) {
    LimitExceededException.check(part, "characters in a filter value", LIMITS + "max-value-length",
        budgets.maxValueLength(), value.asText().length());
  }
}
