package dev.flowpipe.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.benchmarks.report.Section.Empty;
import dev.flowpipe.benchmarks.report.Section.Figure;
import dev.flowpipe.benchmarks.report.Section.Flag;
import dev.flowpipe.benchmarks.report.Section.Items;
import dev.flowpipe.benchmarks.report.Section.Nested;
import dev.flowpipe.benchmarks.report.Section.Text;
import dev.flowpipe.benchmarks.report.Section.Value;
import java.util.ArrayList;
import java.util.List;

/** Turns a scenario's typed records into report values through their JSON shape, so Jackson's annotations hold. */
final class TypedValues {

  private static final ObjectMapper JSON = new ObjectMapper().findAndRegisterModules();

  private TypedValues() {}

  static Section section(Object record) {
    JsonNode tree = JSON.valueToTree(record);
    if (!tree.isObject()) {
      throw new IllegalArgumentException("a report section must be an object, was " + tree.getNodeType() + " from "
          + record.getClass().getName());
    }
    return section(tree, Unit.NONE);
  }

  static Value value(String key, Object value) {
    return value(JSON.valueToTree(value), unit(key, Unit.NONE));
  }

  private static Section section(JsonNode object, Unit enclosing) {
    Section section = new Section();
    object.properties().forEach(field ->
        section.put(field.getKey(), value(field.getValue(), unit(field.getKey(), enclosing))));
    return section;
  }

  private static Value value(JsonNode node, Unit unit) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return new Empty();
    }
    if (node.isObject()) {
      return new Nested(section(node, unit));
    }
    if (node.isArray()) {
      List<Value> items = new ArrayList<>();
      node.forEach(item -> items.add(value(item, unit)));
      return new Items(items);
    }
    if (node.isBoolean()) {
      return new Flag(node.booleanValue());
    }
    if (node.isNumber()) {
      return new Figure(node.numberValue(), unit);
    }
    return new Text(node.asText());
  }

  private static Unit unit(String key, Unit enclosing) {
    Unit named = Unit.namedBy(key);
    return named == null ? enclosing : named;
  }
}
