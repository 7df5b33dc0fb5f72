package dev.flowpipe.webapp.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.Yaml;

/**
 * One entity of Camunda's REST API v2 as our transcription in {@code src/test/resources/v2-spec/} gives it: its result
 * fields, filter properties with their kinds, enum values and sort fields (see that folder's README).
 */
record V2SpecTable(
    String entity, List<String> key, Map<String, Field> fields, Map<String, String> filters,
    Map<String, List<String>> enums, List<String> sorts) {

  /** A result field: its type (key, string, integer, boolean, date-time, enum, object, array) and whether required. */
  record Field(String type, boolean required, boolean nullable) {}

  /** An endpoint answering items of a fixed shape (statistics, sequence flows), from {@code answers.yaml}. */
  record Answer(String name, String method, String path, String body, boolean paged, Map<String, Field> fields,
      List<String> sorts) {}

  /** The operators of each filter kind, the page limits and the cursor pattern, from {@code common.yaml}. */
  record Common(Map<String, List<String>> operators, List<String> sortOrders, int maxLimit, String cursorPattern) {}

  static final List<String> ENTITIES = List.of("process-definitions", "process-instances", "element-instances",
      "variables", "incidents", "jobs", "message-subscriptions", "correlated-message-subscriptions",
      "decision-definitions", "decision-requirements", "decision-instances");

  @SuppressWarnings("unchecked")
  static V2SpecTable load(String entity) {
    Map<String, Object> yaml = read(entity + ".yaml");
    return new V2SpecTable((String) yaml.get("entity"), (List<String>) yaml.get("key"),
        fields((Map<String, Map<String, Object>>) yaml.get("fields")),
        new LinkedHashMap<>((Map<String, String>) yaml.getOrDefault("filters", Map.of())),
        (Map<String, List<String>>) yaml.getOrDefault("enums", Map.of()),
        (List<String>) yaml.getOrDefault("sorts", List.of()));
  }

  @SuppressWarnings("unchecked")
  static List<Answer> answers() {
    List<Map<String, Object>> answers = (List<Map<String, Object>>) read("answers.yaml").get("answers");
    return answers.stream().map(answer -> new Answer((String) answer.get("name"), (String) answer.get("method"),
        (String) answer.get("path"), (String) answer.get("body"), Boolean.TRUE.equals(answer.get("paged")),
        fields((Map<String, Map<String, Object>>) answer.get("fields")),
        (List<String>) answer.getOrDefault("sorts", List.of()))).toList();
  }

  @SuppressWarnings("unchecked")
  static Common common() {
    Map<String, Object> yaml = read("common.yaml");
    Map<String, Object> page = (Map<String, Object>) yaml.get("page");
    return new Common((Map<String, List<String>>) yaml.get("operators"), (List<String>) yaml.get("sortOrders"),
        (Integer) ((Map<String, Object>) page.get("limit")).get("maximum"), (String) page.get("cursorPattern"));
  }

  /** Check names that fail today, each with why (the README's conformance section lists them). */
  @SuppressWarnings("unchecked")
  static Map<String, String> knownDifferences() {
    return (Map<String, String>) read("known-differences.yaml").getOrDefault("differences", Map.of());
  }

  private static Map<String, Field> fields(Map<String, Map<String, Object>> yaml) {
    Map<String, Field> fields = new LinkedHashMap<>();
    yaml.forEach((name, field) -> fields.put(name, new Field((String) field.get("type"),
        Boolean.TRUE.equals(field.get("required")), Boolean.TRUE.equals(field.get("nullable")))));
    return fields;
  }

  private static Map<String, Object> read(String file) {
    try (InputStream in = V2SpecTable.class.getResourceAsStream("/v2-spec/" + file)) {
      if (in == null) {
        throw new IllegalStateException("no v2-spec/" + file + " on the test class path");
      }
      Map<String, Object> yaml = new Yaml().load(in);
      return yaml == null ? Map.of() : yaml;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
