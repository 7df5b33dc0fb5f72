package dev.flowpipe.webapp.query;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.schema.index.ElementEntries;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.webapp.config.WebappProperties;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The process-instance filters {@code elementId}, {@code elementInstanceState} and {@code hasElementInstanceIncident}
 * of Camunda's REST API v2, read together as Camunda reads them: an instance matches when one of its element instances
 * meets all of those given. Read into terms of the instance's {@link ElementEntries} (ADR 15):
 * <ul>
 *   <li>{@code elementId}: a value, {@code $eq}, {@code $in}, {@code $like}, {@code $exists};</li>
 *   <li>{@code elementInstanceState}: a value, {@code $eq}, {@code $in}, {@code $neq}, {@code $notIn} (the other
 *       states of the closed set), {@code $like}, {@code $exists};</li>
 *   <li>{@code hasElementInstanceIncident}: true or false.</li>
 * </ul>
 * {@code $neq} and {@code $notIn} on an element id are refused: "an element instance whose id is not X" holds for
 * nearly every instance, and the terms cannot say it.
 */
final class ElementInstanceFilter {

  static final String ELEMENT_ID = "elementId";
  static final String STATE = "elementInstanceState";
  static final String INCIDENT = "hasElementInstanceIncident";
  static final Set<String> FIELDS = Set.of(ELEMENT_ID, STATE, INCIDENT);

  private static final Vocabulary STATES = Vocabulary.of("ACTIVE", "COMPLETED", "TERMINATED");
  private static final String FIELD = ElementEntries.FIELD;

  private final WebappProperties.Limits budgets;

  ElementInstanceFilter(WebappProperties.Limits budgets) {
    this.budgets = budgets;
  }

  /** The criteria of the three fields in one filter object at {@code path}; none when it names none of them. */
  List<Criterion> criteria(String path, JsonNode filter) {
    JsonNode idNode = filter.path(ELEMENT_ID);
    JsonNode stateNode = filter.path(STATE);
    JsonNode incidentNode = filter.path(INCIDENT);
    if (idNode.isMissingNode() && stateNode.isMissingNode() && incidentNode.isMissingNode()) {
      return List.of();
    }
    Boolean incident = null;
    if (!incidentNode.isMissingNode()) {
      if (!incidentNode.isBoolean()) {
        throw new BadRequestException(path + "." + INCIDENT, "expected true or false, was " + incidentNode);
      }
      incident = incidentNode.booleanValue();
    }
    List<String> states = states(path + "." + STATE, stateNode);
    Ids ids = ids(path + "." + ELEMENT_ID, idNode);
    if (ids.none()) {
      if (states != null || incident != null) {
        throw new BadRequestException(path + "." + ELEMENT_ID,
            "$exists: false (no element instance at all) cannot be combined with a state or an incident flag");
      }
      return List.of(new Criterion.Not(new Criterion.Exists(FIELD)));
    }
    if (states != null && states.isEmpty()) {
      return List.of(new Criterion.Not(new Criterion.Exists("key"))); // no state the API knows: nothing matches
    }
    List<String> stateTerms = states == null ? java.util.Collections.singletonList(null) : states;
    if (ids.pattern() != null) {
      // a pattern on the id, followed by the literal rest of the term: one wildcard per state (and incident flag)
      List<List<Criterion>> alternatives = new ArrayList<>();
      for (String state : stateTerms) {
        for (Boolean flag : incident == null ? List.of(true, false) : List.of(incident)) {
          String rest = ElementEntries.term("x", state, flag).substring(4); // the term after "id=x"
          alternatives.add(List.of(new Criterion.Like(FIELD, "id=" + ids.pattern() + escape(rest))));
        }
      }
      return List.of(new Criterion.AnyOf(alternatives));
    }
    if (ids.values() != null && ids.values().isEmpty()) {
      return List.of(new Criterion.Not(new Criterion.Exists("key"))); // $eq and $in exclude each other
    }
    List<Object> terms = new ArrayList<>();
    for (String id : ids.values() == null ? java.util.Collections.<String>singletonList(null) : ids.values()) {
      for (String state : stateTerms) {
        if (id == null && state == null && incident == null) {
          terms.add("inc=true");
          terms.add("inc=false"); // any element instance at all
        } else {
          terms.add(ElementEntries.term(id, state, incident));
        }
      }
    }
    LimitExceededException.check(path + "." + ELEMENT_ID, "element id and state combinations",
        "flowpipe.webapp.limits.max-list-values", budgets.maxListValues(), terms.size());
    return List.of(terms.size() == 1 ? new Criterion.Equals(FIELD, terms.getFirst()) : new Criterion.OneOf(FIELD, terms));
  }

  /** Exact ids (null: any), or a pattern, or none at all ($exists: false). */
  private record Ids(List<String> values, String pattern, boolean none) {}

  private Ids ids(String part, JsonNode node) {
    if (node.isMissingNode()) {
      return new Ids(null, null, false);
    }
    if (!node.isObject()) {
      return new Ids(List.of(text(part, node)), null, false);
    }
    if (node.isEmpty()) {
      throw new BadRequestException(part, "an empty condition; use a value or operators such as $eq");
    }
    Set<String> values = null;
    String pattern = null;
    boolean none = false;
    for (Iterator<Map.Entry<String, JsonNode>> ops = node.fields(); ops.hasNext(); ) {
      Map.Entry<String, JsonNode> op = ops.next();
      String opPart = part + "." + op.getKey();
      JsonNode operand = op.getValue();
      if (operand.isArray() && operand.isEmpty() && (op.getKey().equals("$in") || op.getKey().equals("$notIn"))) {
        continue; // an empty list is no constraint
      }
      switch (op.getKey()) {
        case "$eq" -> values = intersect(values, List.of(text(opPart, operand)));
        case "$in" -> values = intersect(values, list(opPart, operand));
        case "$like" -> pattern = text(opPart, operand);
        case "$exists" -> {
          if (!operand.isBoolean()) {
            throw new BadRequestException(opPart, "expected true or false, was " + operand);
          }
          none = !operand.booleanValue();
        }
        case "$neq", "$notIn" -> throw new BadRequestException(opPart, "not supported on an element id: an element"
            + " instance whose id differs exists in nearly every instance; use $eq, $in or $like");
        default -> throw new BadRequestException(opPart, "unknown operator; expected one of $eq $exists $in $like");
      }
    }
    if (pattern != null && values != null) {
      throw new BadRequestException(part, "give $like or $eq/$in, not both");
    }
    return new Ids(values == null ? null : List.copyOf(values), pattern, none);
  }

  /** The states meant (null: any), as the read model stores them. */
  private List<String> states(String part, JsonNode node) {
    if (node.isMissingNode()) {
      return null;
    }
    if (!node.isObject()) {
      return List.of(state(part, node));
    }
    if (node.isEmpty()) {
      throw new BadRequestException(part, "an empty condition; use a value or operators such as $eq");
    }
    Set<String> states = new LinkedHashSet<>(STATES.names());
    for (Iterator<Map.Entry<String, JsonNode>> ops = node.fields(); ops.hasNext(); ) {
      Map.Entry<String, JsonNode> op = ops.next();
      String opPart = part + "." + op.getKey();
      JsonNode operand = op.getValue();
      if (operand.isArray() && operand.isEmpty() && (op.getKey().equals("$in") || op.getKey().equals("$notIn"))) {
        continue;
      }
      switch (op.getKey()) {
        case "$eq" -> states.retainAll(List.of(state(opPart, operand)));
        case "$neq" -> states.remove(state(opPart, operand));
        case "$in" -> states.retainAll(stateList(opPart, operand));
        case "$notIn" -> states.removeAll(stateList(opPart, operand));
        case "$like" -> states.retainAll(STATES.storedMatching(text(opPart, operand)));
        case "$exists" -> {
          if (!operand.isBoolean()) {
            throw new BadRequestException(opPart, "expected true or false, was " + operand);
          }
          if (!operand.booleanValue()) {
            states.clear(); // every element instance has a state
          }
        }
        default -> throw new BadRequestException(opPart,
            "unknown operator; expected one of $eq $neq $exists $in $notIn $like");
      }
    }
    return List.copyOf(states);
  }

  private List<String> stateList(String part, JsonNode operand) {
    List<String> states = new ArrayList<>();
    for (int i = 0; i < checkedList(part, operand).size(); i++) {
      states.add(state(part + "[" + i + "]", operand.get(i)));
    }
    return states;
  }

  private static String state(String part, JsonNode value) {
    if (!value.isTextual() || !STATES.names().contains(value.asText())) {
      throw new BadRequestException(part, "expected one of " + STATES.names() + ", was " + value);
    }
    return value.asText();
  }

  private List<String> list(String part, JsonNode operand) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < checkedList(part, operand).size(); i++) {
      values.add(text(part + "[" + i + "]", operand.get(i)));
    }
    return values;
  }

  private JsonNode checkedList(String part, JsonNode operand) {
    if (!operand.isArray()) {
      throw new BadRequestException(part, "expected an array of values, was " + operand);
    }
    LimitExceededException.check(part, "values", "flowpipe.webapp.limits.max-list-values", budgets.maxListValues(),
        operand.size());
    return operand;
  }

  private String text(String part, JsonNode value) {
    if (!value.isTextual()) {
      throw new BadRequestException(part, "expected a string, was " + value);
    }
    LimitExceededException.check(part, "characters in a filter value", "flowpipe.webapp.limits.max-value-length",
        budgets.maxValueLength(), value.asText().length());
    return value.asText();
  }

  private static Set<String> intersect(Set<String> current, List<String> more) {
    Set<String> values = new LinkedHashSet<>(more);
    if (current != null) {
      values.retainAll(current);
    }
    return values;
  }

  /** The literal part of a wildcard pattern: {@code \ * ?} escaped. */
  private static String escape(String literal) {
    return literal.replace("\\", "\\\\").replace("*", "\\*").replace("?", "\\?");
  }
}
