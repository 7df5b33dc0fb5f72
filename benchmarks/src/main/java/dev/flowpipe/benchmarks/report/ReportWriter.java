package dev.flowpipe.benchmarks.report;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.benchmarks.report.Section.Empty;
import dev.flowpipe.benchmarks.report.Section.Figure;
import dev.flowpipe.benchmarks.report.Section.Flag;
import dev.flowpipe.benchmarks.report.Section.Items;
import dev.flowpipe.benchmarks.report.Section.Nested;
import dev.flowpipe.benchmarks.report.Section.Text;
import dev.flowpipe.benchmarks.report.Section.Value;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a {@link Report}, the one way every report is written: as JSON under {@code benchmarks/results/}, dated and
 * with the machine it ran on, and as markdown beside it. The JSON tree is what the HTML pages are drawn from, now or
 * later from the saved file.
 */
public final class ReportWriter {

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final TypeReference<LinkedHashMap<String, Object>> TREE = new TypeReference<>() {};

  private ReportWriter() {}

  /** The report with {@code date} and {@code machine} added, as it is written. */
  public static Report dated(Report report, LocalDate date) {
    Section dated = new Section().merge(report.body());
    dated.text("date", date.toString());
    dated.text("machine", Runtime.getRuntime().availableProcessors() + " cores, Java " + Runtime.version());
    return new Report(dated);
  }

  /** The report as the JSON tree it is written as (what a page is drawn from). */
  public static Map<String, Object> tree(Report report) {
    return JSON.convertValue(json(report.body()), TREE);
  }

  public static void write(Report report, Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    JSON.writeValue(file.toFile(), json(report.body()));
  }

  public static String text(Report report) throws IOException {
    return JSON.writeValueAsString(json(report.body()));
  }

  /** A saved report, as its tree. */
  public static Map<String, Object> read(Path file) throws IOException {
    return JSON.readValue(file.toFile(), TREE);
  }

  /**
   * The report as markdown: its description as the title, each figure with its unit, each nested section under a
   * heading, and a list of flat sections (windows, runs, rounds) as one table.
   */
  public static String markdown(Report report) {
    StringBuilder out = new StringBuilder();
    Section body = report.body();
    out.append("# ").append(body.get(Report.SCENARIO) instanceof Text t ? t.text() : "report").append("\n\n");
    markdown(body, 2, out);
    return out.toString();
  }

  public static void writeMarkdown(Report report, Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, markdown(report));
  }

  private static ObjectNode json(Section section) {
    ObjectNode object = NODES.objectNode();
    section.values().forEach((key, value) -> object.set(key, json(value)));
    return object;
  }

  private static JsonNode json(Value value) {
    return switch (value) {
      case Text t -> NODES.textNode(t.text());
      case Flag f -> NODES.booleanNode(f.value());
      case Figure f -> number(f.value());
      case Nested n -> json(n.section());
      case Items i -> {
        ArrayNode array = NODES.arrayNode();
        i.items().forEach(item -> array.add(json(item)));
        yield array;
      }
      case Empty e -> NullNode.getInstance();
    };
  }

  private static JsonNode number(Number n) {
    return switch (n) {
      case Integer i -> NODES.numberNode(i);
      case Long l -> NODES.numberNode(l);
      case Short s -> NODES.numberNode(s);
      case Byte b -> NODES.numberNode(b);
      case Float f -> NODES.numberNode(f);
      case BigInteger b -> NODES.numberNode(b);
      case BigDecimal b -> NODES.numberNode(b);
      default -> NODES.numberNode(n.doubleValue());
    };
  }

  private static void markdown(Section section, int level, StringBuilder out) {
    boolean listed = false;
    for (Map.Entry<String, Value> entry : section.values().entrySet()) {
      if (level == 2 && entry.getKey().equals(Report.SCENARIO)) {
        continue;
      }
      Value value = entry.getValue();
      if (value instanceof Nested || table(value) != null) {
        continue; // after the leaves, under their own heading
      }
      out.append("- ").append(entry.getKey()).append(": ").append(inline(value)).append('\n');
      listed = true;
    }
    if (listed) {
      out.append('\n');
    }
    for (Map.Entry<String, Value> entry : section.values().entrySet()) {
      Value value = entry.getValue();
      String heading = "#".repeat(Math.min(level, 6)) + " " + entry.getKey() + "\n\n";
      if (value instanceof Nested n) {
        out.append(heading);
        markdown(n.section(), level + 1, out);
      } else if (table(value) instanceof List<Section> rows) {
        out.append(heading);
        table(rows, out);
      }
    }
  }

  /** The rows of a list of flat sections (each value a leaf), or null if the value is not such a list. */
  private static List<Section> table(Value value) {
    if (!(value instanceof Items items) || items.items().isEmpty()) {
      return null;
    }
    List<Section> rows = new java.util.ArrayList<>();
    for (Value item : items.items()) {
      if (!(item instanceof Nested n) || n.section().values().values().stream()
          .anyMatch(v -> v instanceof Nested || v instanceof Items)) {
        return null;
      }
      rows.add(n.section());
    }
    return rows;
  }

  private static void table(List<Section> rows, StringBuilder out) {
    List<String> columns = rows.stream().flatMap(r -> r.values().keySet().stream()).distinct().toList();
    out.append("| ").append(String.join(" | ", columns)).append(" |\n");
    out.append("|").append("---|".repeat(columns.size())).append('\n');
    for (Section row : rows) {
      out.append("| ");
      out.append(String.join(" | ", columns.stream()
          .map(c -> row.get(c) == null ? "" : inline(row.get(c))).toList()));
      out.append(" |\n");
    }
    out.append('\n');
  }

  static String inline(Value value) {
    return switch (value) {
      case Text t -> t.text();
      case Flag f -> String.valueOf(f.value());
      case Figure f -> figure(f);
      case Items i -> String.join(", ", i.items().stream().map(ReportWriter::inline).toList());
      case Nested n -> "{" + String.join(", ", n.section().values().entrySet().stream()
          .map(e -> e.getKey() + ": " + inline(e.getValue())).toList()) + "}";
      case Empty e -> "-";
    };
  }

  private static String figure(Figure f) {
    String number = f.value() instanceof Double || f.value() instanceof Float || f.value() instanceof BigDecimal
        ? String.format(Locale.ROOT, "%.3f", f.value().doubleValue()).replaceAll("\\.?0+$", "")
        : f.value().toString();
    return f.unit().symbol().isEmpty() ? number : number + " " + f.unit().symbol();
  }
}
