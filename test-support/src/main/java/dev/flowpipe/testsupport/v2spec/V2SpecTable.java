package dev.flowpipe.testsupport.v2spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.Yaml;

/**
 * One entity of Camunda's REST API v2 as our transcription in {@code v2-spec/} (this module's resources) gives it: its result
 * fields, filter properties with their kinds, enum values and sort fields (see that folder's README).
 */
public record V2SpecTable(
    String entity, List<String> key, Map<String, Field> fields, Map<String, String> filters,
    Map<String, List<String>> enums, List<String> sorts) {

  /** A result field: its type (key, string, integer, boolean, date-time, enum, object, array) and whether required. */
  public record Field(String type, boolean required, boolean nullable) {}

  /** An endpoint answering items of a fixed shape (statistics, sequence flows), from {@code answers.yaml}. */
  public record Answer(String name, String method, String path, String body, boolean paged, Map<String, Field> fields,
      List<String> sorts) {}

  /** The operators of each filter kind, the page limits and the cursor pattern, from {@code common.yaml}. */
  public record Common(Map<String, List<String>> operators, List<String> sortOrders, int maxLimit, String cursorPattern) {}

  public static final List<String> ENTITIES = List.of("process-definitions", "process-instances", "element-instances",
      "variables", "incidents", "jobs", "message-subscriptions", "correlated-message-subscriptions",
      "decision-definitions", "decision-requirements", "decision-instances");

  @SuppressWarnings("unchecked")
  public static V2SpecTable load(String entity) {
    Map<String, Object> yaml = read(entity + ".yaml");
    return new V2SpecTable((String) yaml.get("entity"), (List<String>) yaml.get("key"),
        fields((Map<String, Map<String, Object>>) yaml.get("fields")),
        new LinkedHashMap<>((Map<String, String>) yaml.getOrDefault("filters", Map.of())),
        (Map<String, List<String>>) yaml.getOrDefault("enums", Map.of()),
        (List<String>) yaml.getOrDefault("sorts", List.of()));
  }

  @SuppressWarnings("unchecked")
  public static List<Answer> answers() {
    List<Map<String, Object>> answers = (List<Map<String, Object>>) read("answers.yaml").get("answers");
    return answers.stream().map(answer -> new Answer((String) answer.get("name"), (String) answer.get("method"),
        (String) answer.get("path"), (String) answer.get("body"), Boolean.TRUE.equals(answer.get("paged")),
        fields((Map<String, Map<String, Object>>) answer.get("fields")),
        (List<String>) answer.getOrDefault("sorts", List.of()))).toList();
  }

  @SuppressWarnings("unchecked")
  public static Common common() {
    Map<String, Object> yaml = read("common.yaml");
    Map<String, Object> page = (Map<String, Object>) yaml.get("page");
    return new Common((Map<String, List<String>>) yaml.get("operators"), (List<String>) yaml.get("sortOrders"),
        (Integer) ((Map<String, Object>) page.get("limit")).get("maximum"), (String) page.get("cursorPattern"));
  }

  /** Check names that fail today on the web app test's data, each with why (the web app README lists them). */
  @SuppressWarnings("unchecked")
  public static Map<String, String> knownDifferences() {
    return (Map<String, String>) read("known-differences.yaml").getOrDefault("differences", Map.of());
  }

  /**
   * The known differences on data of real runs on a node: those of {@link #knownDifferences()} without the ones
   * {@code known-differences-on-real-runs.yaml} says pass there, with the ones it says fail there only (each with why).
   */
  @SuppressWarnings("unchecked")
  public static Map<String, String> knownDifferencesOnRealRuns() {
    Map<String, Object> yaml = read("known-differences-on-real-runs.yaml");
    Map<String, String> known = new LinkedHashMap<>(knownDifferences());
    Map<String, String> passing = (Map<String, String>) yaml.getOrDefault("passes", Map.of());
    passing.keySet().forEach(name -> {
      if (known.remove(name) == null) {
        throw new IllegalStateException("known-differences-on-real-runs.yaml: '" + name
            + "' passes, but known-differences.yaml does not list it");
      }
    });
    known.putAll((Map<String, String>) yaml.getOrDefault("fails", Map.of()));
    return known;
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
        throw new IllegalStateException("no v2-spec/" + file + " on the class path");
      }
      Map<String, Object> yaml = new Yaml().load(in);
      return yaml == null ? Map.of() : yaml;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
