package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard stays in step with the node: it parses, it uses a Prometheus datasource variable, every metric
 * in a panel expression is in the list kept next to it, every listed metric is used, and every listed flowpipe metric
 * is a Micrometer meter that the exporter or the node registers.
 */
class DashboardTest {

  private static final Path GRAFANA = Path.of("../docs/grafana");
  private static final Pattern METRIC = Pattern.compile("\\b((?:flowpipe|jvm|zeebe|atomix|disk)_[a-z_]+)");
  private static final List<String> SUFFIXES = List.of("_total", "_seconds", "_milliseconds", "_bytes");

  @Test
  void everyPanelQueriesAListedMetricThroughTheDatasourceVariable() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(GRAFANA.resolve("flowpipe-dashboard.json").toFile());
    Set<String> listed = listed();
    Set<String> used = new HashSet<>();

    assertThat(dashboard.path("templating").path("list").findValuesAsText("type")).contains("datasource");
    assertThat(dashboard.path("panels")).isNotEmpty();
    for (JsonNode panel : dashboard.path("panels")) {
      assertThat(panel.path("datasource").path("uid").asText()).as(panel.path("title").asText())
          .isEqualTo("${datasource}");
      assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
      for (JsonNode target : panel.path("targets")) {
        Matcher m = METRIC.matcher(target.path("expr").asText());
        boolean any = false;
        while (m.find()) {
          String name = base(m.group(1), listed);
          assertThat(listed).as("metric %s in panel '%s'", m.group(1), panel.path("title").asText()).contains(name);
          used.add(name);
          any = true;
        }
        assertThat(any).as("an expression in '%s' names a metric", panel.path("title").asText()).isTrue();
      }
    }
    assertThat(used).containsExactlyInAnyOrderElementsOf(listed);
  }

  @Test
  void everyListedFlowpipeMetricIsAMeterTheNodeRegisters() throws IOException {
    StringBuilder sources = new StringBuilder();
    for (String module : List.of("../camunda-exporter/src/main/java", "../engine-broker/src/main/java")) {
      try (Stream<Path> files = Files.walk(Path.of(module))) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          sources.append(Files.readString(file));
        }
      }
    }
    for (String metric : listed()) {
      if (!metric.startsWith("flowpipe_")) {
        continue;
      }
      String meter = metric;
      for (String suffix : SUFFIXES) {
        if (meter.endsWith(suffix)) {
          meter = meter.substring(0, meter.length() - suffix.length());
        }
      }
      assertThat(sources.toString()).as(metric).contains("\"" + meter.replace('_', '.') + "\"");
    }
  }

  /** A name with a Prometheus series suffix (_sum, _count, _max, _bucket) maps to its listed base name. */
  private static String base(String name, Set<String> listed) {
    for (String suffix : List.of("_sum", "_count", "_max", "_bucket")) {
      if (!listed.contains(name) && name.endsWith(suffix)) {
        return name.substring(0, name.length() - suffix.length());
      }
    }
    return name;
  }

  private static Set<String> listed() throws IOException {
    Set<String> names = new HashSet<>();
    for (String line : Files.readAllLines(GRAFANA.resolve("metrics.txt"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        names.add(line.strip());
      }
    }
    return names;
  }
}
