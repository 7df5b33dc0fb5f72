package dev.flowpipe.benchmarks.report;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.benchmarks.report.HtmlReport.Series;
import dev.flowpipe.benchmarks.scenario.baseline.BulkDelaySweep;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * HTML pages for the scenarios that build their report as JSON only ({@code overhead}, {@code availability},
 * {@code exporter-throughput}, {@code exporter-slow-link}, {@code search-latency}), drawn from that same report, so a
 * page can also be made again from a saved {@code results/<scenario>.json} ({@code benchmarks/run html <scenario>}).
 */
public final class ReportPages {

  public static final Set<String> SCENARIOS =
      Set.of("overhead", "availability", "exporter-throughput", "exporter-slow-link", "slow-store", "search-latency",
          "crash", "cluster-crash");
  private static final int ROWS_SHOWN = 200;

  private ReportPages() {}

  /** Writes {@code file} for the scenario's report; returns false if the scenario has no page here. */
  public static boolean write(String scenario, Map<String, Object> report, Path file) throws Exception {
    HtmlReport html = switch (scenario) {
      case "overhead" -> overhead(report);
      case "availability" -> availability(report);
      case "exporter-throughput" -> exporterThroughput(report);
      case "exporter-slow-link", "slow-store" -> exporterSlowLink(report);
      case "search-latency" -> searchLatency(report);
      case "crash" -> crash(report);
      case "cluster-crash" -> clusterCrash(report);
      default -> null;
    };
    if (html == null) {
      return false;
    }
    html.write(file);
    System.out.println("html report: " + file);
    return true;
  }

  private static HtmlReport start(String title, Map<String, Object> report) {
    HtmlReport html = new HtmlReport(title);
    html.paragraph(report.get("scenario") + ". Date: " + report.get("date") + ". Machine: " + report.get("machine")
        + ".");
    return html;
  }

  @SuppressWarnings("unchecked")
  public static HtmlReport overhead(Map<String, Object> report) {
    HtmlReport html = start("Exporter overhead: engine throughput", report);
    Map<String, List<Number>> perRound = (Map<String, List<Number>>) report.get("instancesPerSecond");
    Map<String, Number> means = (Map<String, Number>) report.get("meanInstancesPerSecond");
    int rounds = perRound.values().stream().mapToInt(List::size).max().orElse(0);
    List<String> header = new ArrayList<>(List.of("mode"));
    for (int i = 1; i <= rounds; i++) {
      header.add("round " + i);
    }
    header.add("mean");
    List<List<String>> rows = new ArrayList<>();
    List<Series> series = new ArrayList<>();
    perRound.forEach((mode, values) -> {
      List<String> row = new ArrayList<>(List.of(mode));
      values.forEach(v -> row.add(format(v)));
      while (row.size() < rounds + 1) {
        row.add("-");
      }
      row.add(format(means.get(mode)));
      rows.add(row);
      double[] x = new double[values.size()];
      for (int i = 0; i < x.length; i++) {
        x[i] = i + 1;
      }
      series.add(new Series(mode, x, values.stream().mapToDouble(Number::doubleValue).toArray()));
    });
    html.paragraph("Completed instances per second, " + report.get("measureSeconds")
        + " s measured after a 10 s warm-up, each mode on a fresh node, rounds alternating.");
    html.table(header, rows);
    List<List<String>> ratios = new ArrayList<>();
    for (String ratio : List.of("oursOverNoop", "oursOverNone", "noopOverNone")) {
      if (report.containsKey(ratio)) {
        ratios.add(List.of(ratio, String.format(Locale.ROOT, "%.2f", ((Number) report.get(ratio)).doubleValue())));
      }
    }
    if (!ratios.isEmpty()) {
      html.table(List.of("ratio of means", "value"), ratios);
    }
    if (rounds > 1) {
      html.chart("Throughput per round", "instances/s", "round", series, List.of());
    }
    return html;
  }

  @SuppressWarnings("unchecked")
  public static HtmlReport availability(Map<String, Object> report) {
    HtmlReport html = start("Data availability: completed to searchable in the store", report);
    Map<String, Map<String, Object>> byDelay = (Map<String, Map<String, Object>>) report.get("latencyMillisByBulkDelay");
    html.paragraph("Probes per bulk delay: " + report.get("probes") + ". Milliseconds.");
    List<List<String>> rows = new ArrayList<>();
    List<Double> x = new ArrayList<>();
    List<Double> p50 = new ArrayList<>();
    List<Double> p99 = new ArrayList<>();
    byDelay.forEach((run, r) -> {
      Map<String, Object> exporter = (Map<String, Object>) r.getOrDefault("exporterExportLatencyMillis", Map.of());
      // a run with a node setting variant is labelled "100ms, key=value": its delay is the part before the comma
      String delay = run.split(",", 2)[0];
      rows.add(List.of(run, format(r.get("count")), format(r.get("p50")), format(r.get("p90")),
          format(r.get("p99")), format(r.get("max")), format(exporter.get("p50")), format(exporter.get("p99")),
          format(exporter.get("max"))));
      x.add(BulkDelaySweep.seconds(delay));
      p50.add(((Number) r.get("p50")).doubleValue());
      p99.add(((Number) r.get("p99")).doubleValue());
    });
    html.table(List.of("run (bulk delay)", "probes", "p50", "p90", "p99", "max", "exporter p50", "exporter p99",
        "exporter max (last minutes)"), rows);
    long delays = x.stream().distinct().count();
    if (delays > 1 && delays == x.size()) { // runs of one delay with several settings have no curve to draw
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < x.size(); i++) {
        order.add(i);
      }
      order.sort((a, b) -> Double.compare(x.get(a), x.get(b)));
      double[] xs = order.stream().mapToDouble(x::get).toArray();
      html.chart("Latency against the bulk delay", "ms", "s delay", List.of(
          new Series("p50", xs, order.stream().mapToDouble(p50::get).toArray()),
          new Series("p99", xs, order.stream().mapToDouble(p99::get).toArray())), List.of());
    }
    return html;
  }

  @SuppressWarnings("unchecked")
  public static HtmlReport exporterThroughput(Map<String, Object> report) {
    HtmlReport html = start("Exporter throughput", report);
    List<Map<String, Object>> runs = (List<Map<String, Object>>) report.get("runs");
    html.paragraph("Instances per run: " + report.get("instancesPerRun") + ".");
    List<List<String>> rows = new ArrayList<>();
    double[] x = new double[runs.size()];
    double[] y = new double[runs.size()];
    for (int i = 0; i < runs.size(); i++) {
      Map<String, Object> r = runs.get(i);
      rows.add(List.of(String.valueOf(i + 1), String.valueOf(r.getOrDefault("bulkRefresh", "-")), format(r.get("records")), format(r.get("documents")),
          format(r.get("seconds")), format(r.get("recordsPerSecond"))));
      x[i] = i + 1;
      y[i] = ((Number) r.get("recordsPerSecond")).doubleValue();
    }
    html.table(List.of("run", "bulk refresh", "records", "documents", "seconds", "records/s"), rows);
    if (runs.size() > 1) {
      html.chart("Records per second, consecutive runs", "records/s", "run",
          List.of(new Series("records/s", x, y)), List.of());
    }
    return html;
  }

  public static HtmlReport exporterSlowLink(Map<String, Object> report) {
    HtmlReport html = start("Exporter behind a slow link: bulks in flight", report);
    html.paragraph("A store request through each proxy (median of 5, ms, by added round trip): "
        + report.get("storeRequestMillisByRoundTrip") + ". Load average before: " + report.get("loadAverageBefore")
        + "; after: " + report.get("loadAverageAfter") + ".");
    // the runs are records when the report was just made, maps when it was read back from JSON
    List<Map<String, Object>> runs = new ObjectMapper().convertValue(report.get("runs"), new TypeReference<>() {});
    List<List<String>> rows = new ArrayList<>();
    for (Map<String, Object> run : runs) {
      Map<String, Object> freshness = nested(run, "freshnessMillis");
      Map<String, Object> bulks = nested(run, "freshnessBulks");
      Map<String, Object> throughputBulks = nested(run, "throughputBulks");
      rows.add(List.of(format(run.get("round")), format(run.get("roundTripMillis")), format(run.get("inFlight")),
          format(freshness.get("p50")), format(freshness.get("p90")), format(freshness.get("p99")),
          format(freshness.get("max")), format(bulks.get("meanMillis")), format(run.get("recordsPerSecond")),
          format(throughputBulks.get("meanMillis"))));
    }
    html.table(List.of("round", "round trip ms", "in flight", "freshness p50 ms", "p90", "p99", "max",
        "bulk mean ms", "throughput records/s", "bulk mean ms"), rows);
    return html;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> nested(Map<String, Object> map, String key) {
    return (Map<String, Object>) map.getOrDefault(key, Map.of());
  }

  @SuppressWarnings("unchecked")
  public static HtmlReport searchLatency(Map<String, Object> report) {
    HtmlReport html = start("Search latency through the web app's API", report);
    html.paragraph("Process instances: " + report.get("processInstances") + "; documents: " + report.get("documents")
        + "; loaded in " + report.get("loadSeconds") + " s; runs per query: " + report.get("runsPerQuery") + ".");
    List<List<String>> rows = new ArrayList<>();
    Map<String, Map<String, Object>> byQuery = (Map<String, Map<String, Object>>) report.get("byQuery");
    byQuery.forEach((query, r) -> rows.add(row(query, r)));
    rows.add(row("all queries", (Map<String, Object>) report.get("allQueries")));
    html.table(List.of("request", "count", "p50 ms", "p99 ms", "max ms"), rows);
    return html;
  }

  public static HtmlReport crash(Map<String, Object> report) {
    return crash("Crash suite", report);
  }

  /** The crash suite's page under {@code name}. */
  @SuppressWarnings("unchecked")
  private static HtmlReport crash(String name, Map<String, Object> report) {
    HtmlReport html = start(name + ": " + (Boolean.TRUE.equals(report.get("passed")) ? "passed" : "FAILED"),
        report);
    Map<String, Object> clean = (Map<String, Object>) report.get("cleanPass");
    Map<String, Object> client = (Map<String, Object>) report.get("clientOracle");
    Map<String, Object> load = (Map<String, Object>) report.get("load");
    html.table(List.of("seed", "kills", "partitions", "instances known", "records recorded", "documents compared",
            "lost", "extra", "duplicated", "different", "client mismatches", "exporter caught up"),
        List.of(List.of(format(report.get("seed")), format(report.get("kills")), format(report.get("partitions")),
            format(load.get("instancesKnown")), format(report.get("recordsRecorded")),
            format(clean.get("documentsCompared")), format(clean.get("lost")), format(clean.get("extra")),
            format(clean.get("duplicated")), format(clean.get("different")), format(client.get("mismatchCount")),
            format(report.get("exporterCaughtUp")))));
    html.paragraph("Killed at (s): " + report.get("killedAtSeconds") + "; each restart ready after (s): "
        + report.get("restartSeconds") + ". Commands by outcome: " + load.get("commands") + ". Export positions "
        + "(the node's mark, the highest position a document reflects, the acknowledged position): "
        + report.get("exportPositions") + ".");
    html.heading("Per index, clean pass against the node");
    List<List<String>> indices = new ArrayList<>();
    for (Map<String, Object> i : (List<Map<String, Object>>) clean.get("indices")) {
      indices.add(List.of(format(i.get("index")), format(i.get("expected")), format(i.get("actual")),
          format(i.get("lost")), format(i.get("extra")), format(i.get("duplicated")), format(i.get("different"))));
    }
    html.table(List.of("index", "clean pass", "node", "lost", "extra", "duplicated", "different"), indices);
    List<Map<String, Object>> differences = (List<Map<String, Object>>) clean.get("differences");
    html.heading("Differences (" + differences.size() + (differences.size() > ROWS_SHOWN ? ", first " + ROWS_SHOWN
        : "") + ")");
    List<List<String>> rows = new ArrayList<>();
    for (Map<String, Object> d : differences.subList(0, Math.min(ROWS_SHOWN, differences.size()))) {
      rows.add(List.of(format(d.get("index")), format(d.get("id")), format(d.get("field")), format(d.get("expected")),
          format(d.get("actual")), format(d.get("actualPosition")), format(d.get("writtenIn"))));
    }
    html.table(List.of("index", "id", "field", "clean pass", "node", "node's position", "written"), rows);
    List<Map<String, Object>> mismatches = (List<Map<String, Object>>) client.get("mismatches");
    html.heading("Client oracle: " + client.get("instances") + " instances (" + client.get(
        "instancesWithOneAllowedState") + " with one allowed state), " + client.get("variables") + " variables, "
        + client.get("incidents") + " incidents; " + mismatches.size() + " mismatches");
    List<List<String>> mismatchRows = new ArrayList<>();
    for (Map<String, Object> m : mismatches.subList(0, Math.min(ROWS_SHOWN, mismatches.size()))) {
      mismatchRows.add(List.of(format(m.get("what")), format(m.get("key")), format(m.get("expected")),
          format(m.get("actual"))));
    }
    html.table(List.of("what", "key", "expected", "read model"), mismatchRows);
    return html;
  }

  /** The crash suite's page, then each failover and each node's web app against the store. */
  @SuppressWarnings("unchecked")
  public static HtmlReport clusterCrash(Map<String, Object> report) {
    HtmlReport html = crash("Cluster crash suite", report);
    html.heading("Failovers (the clients' gateway: " + report.get("gateway") + ")");
    List<List<String>> failovers = new ArrayList<>();
    for (Map<String, Object> f : (List<Map<String, Object>>) report.get("failovers")) {
      failovers.add(List.of(format(f.get("kill")), format(f.get("atSeconds")), format(f.get("partition")),
          format(f.get("killedNode")), format(f.get("clientGatewayKilled")), format(f.get("newLeader")),
          format(f.get("newLeaderAfterSeconds")), format(f.get("exportingResumedAfterSeconds")),
          format(f.get("rejoinedAfterSeconds"))));
    }
    html.table(List.of("kill", "at s", "partition", "killed node (its leader)", "clients' gateway killed",
        "new leader", "new leader after s", "its exporter past the old ack after s", "rejoined after s"), failovers);
    html.heading("Each node's web app against the store and the client oracle");
    List<List<String>> webApps = new ArrayList<>();
    for (Map<String, Object> w : (List<Map<String, Object>>) report.get("webApps")) {
      List<String> counts = ((List<Map<String, Object>>) w.get("entities")).stream()
          .map(e -> e.get("entity") + " " + format(e.get("webApp")) + "/" + format(e.get("store"))).toList();
      webApps.add(List.of(format(w.get("node")), String.join(", ", counts), format(w.get("differenceCount")),
          format(w.get("clientMismatchCount"))));
    }
    html.table(List.of("node", "items web app / store", "differences", "client mismatches"), webApps);
    return html;
  }

  private static List<String> row(String name, Map<String, Object> r) {
    return List.of(name, format(r.get("count")), format(r.get("p50Ms")), format(r.get("p99Ms")),
        format(r.get("maxMs")));
  }

  public static String format(Object value) {
    if (value == null) {
      return "-";
    }
    if (value instanceof Double || value instanceof Float) {
      return String.format(Locale.ROOT, "%.1f", ((Number) value).doubleValue());
    }
    return String.valueOf(value);
  }
}
