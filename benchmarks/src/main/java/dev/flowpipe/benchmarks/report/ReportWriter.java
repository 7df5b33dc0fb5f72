package dev.flowpipe.benchmarks.report;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a scenario's report as JSON under {@code benchmarks/results/}, the one way every report is written: a typed
 * report (a record of the scenario's own) or, for the scenarios not yet typed, a map, each dated and with the machine
 * it ran on. The JSON tree it writes is what the HTML pages are drawn from, now or later from the saved file.
 */
public final class ReportWriter {

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final TypeReference<LinkedHashMap<String, Object>> TREE = new TypeReference<>() {};

  private ReportWriter() {}

  /** The report's fields as a JSON tree (what a page is drawn from). */
  public static Map<String, Object> fields(Object report) {
    return JSON.convertValue(report, TREE);
  }

  /** The report as the JSON tree it is written as, with {@code date} and {@code machine} added. */
  public static Map<String, Object> tree(Object report, LocalDate date) {
    Map<String, Object> tree = fields(report);
    tree.put("date", date.toString());
    tree.put("machine", Runtime.getRuntime().availableProcessors() + " cores, Java " + Runtime.version());
    return tree;
  }

  public static void write(Map<String, Object> tree, Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    JSON.writeValue(file.toFile(), tree);
  }

  public static String text(Map<String, Object> tree) throws IOException {
    return JSON.writeValueAsString(tree);
  }

  /** A saved report, as its tree. */
  public static Map<String, Object> read(Path file) throws IOException {
    return JSON.readValue(file.toFile(), TREE);
  }
}
