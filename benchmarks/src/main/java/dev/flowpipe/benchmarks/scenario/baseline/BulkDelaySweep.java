package dev.flowpipe.benchmarks.scenario.baseline;

import dev.flowpipe.benchmarks.report.ReportWriter;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.benchmarks.report.Figures;
import dev.flowpipe.benchmarks.report.HtmlReport;
import dev.flowpipe.benchmarks.prometheus.PrometheusText;
import dev.flowpipe.benchmarks.load.Saturation;
import dev.flowpipe.benchmarks.load.Availability;
import dev.flowpipe.benchmarks.load.AvailabilityProbe;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.worker.JobWorker;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Data availability against the exporter's bulk delay (the published experiment: 5.69 s at a 5 s delay, 3.68 s at
 * 1 s), at a low and a higher background load, each combination on a fresh node. Two views per probe instance: the
 * time from its engine end date to COMPLETED in a search of the store, and to COMPLETED through the web app's search
 * API ({@code POST /v2/process-instances/search}).
 */
public final class BulkDelaySweep {

  public static final List<String> DELAYS = List.of("5s", "1s", "100ms", "20ms");
  public static final List<Integer> LOADS = List.of(5, 50);

  private BulkDelaySweep() {}

  /** The two latency histograms of one run. */
  public record Result(Histogram store, Histogram api) {}

  public static Report run(Path root, int probes) throws Exception {
    Section runs = new Section();
    List<List<String>> rows = new ArrayList<>();
    int total = DELAYS.size() * LOADS.size();
    int done = 0;
    long started = System.nanoTime();
    for (int load : LOADS) {
      for (String delay : DELAYS) {
        done++;
        System.out.printf(Locale.ROOT, "[%d/%d, %.0f s] load %d PI/s, bulk delay %s: starting a fresh node%n", done,
            total, (System.nanoTime() - started) / 1e9, load, delay);
        Path work = ScratchDirectories.create("bench-sweep");
        try (NodeProcess node = NodeProcess.start(root, work, List.of("--flowpipe.exporter.bulk.delay=" + delay));
            ZeebeClient client = ScenarioNodes.client(node);
            SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.storeUrl()))) {
          ScenarioNodes.deploy(client);
          Result result = measure(client, store, "flowpipe", node.httpPort(), load, probes);
          runs.section(load + "/s " + delay).figure("loadPerSecond", load).text("bulkDelay", delay)
              .section("storeSearchMillis", Figures.percentiles(result.store()))
              .section("webappApiMillis", Figures.percentiles(result.api()))
              .typed("exporterExportLatencyMillis", PrometheusText.exporterLatency(node.text("/actuator/prometheus")));
          rows.add(row(load, delay, result));
          System.out.printf(Locale.ROOT, "[%d/%d] load %d PI/s, bulk delay %s: store %s, api %s%n", done, total,
              load, delay, Figures.percentiles(result.store()), Figures.percentiles(result.api()));
        }
      }
    }
    Report report = Report.describing("bulk-delay sweep: probe instance completed (engine end date) to COMPLETED in a store search "
        + "and through the web app's search API, sequential probes, polled every 10 ms, under a background load of "
        + "one-service-task instances; each (load, delay) on a fresh node with the default refresh interval");
    report.body().figure("probesPerRun", probes).section("runs", runs);
    html(ReportWriter.tree(report), rows, root.resolve("benchmarks/results/bulk-delay-sweep.html"));
    return report;
  }

  private static List<String> row(int load, String delay, Result r) {
    List<String> row = new ArrayList<>(List.of(load + " PI/s", delay));
    for (Histogram h : List.of(r.store(), r.api())) {
      row.add(String.valueOf(h.getValueAtPercentile(50)));
      row.add(String.valueOf(h.getValueAtPercentile(90)));
      row.add(String.valueOf(h.getValueAtPercentile(99)));
      row.add(String.valueOf(h.getMaxValue()));
    }
    return row;
  }

  /** Sequential probes under a background load; each probe polls the store and the API until both show it. */
  public static Result measure(ZeebeClient client, SearchStore store, String prefix, int httpPort, int load, int probes)
      throws Exception {
    AvailabilityProbe probe = new AvailabilityProbe(client, store, prefix, URI.create("http://127.0.0.1:" + httpPort));
    Thread background = Thread.ofPlatform().daemon().start(() -> Availability.backgroundLoad(client, load));
    try (JobWorker worker = client.newWorker().jobType(Saturation.JOB_TYPE)
        .handler((jobs, job) -> jobs.newCompleteCommand(job.getKey()).send())
        .maxJobsActive(256).pollInterval(Duration.ofMillis(10)).streamEnabled(true).open()) {
      Thread.sleep(2_000); // warm up
      for (int i = 0; i < probes; i++) {
        probe.record(probe.probe());
        if ((i + 1) % 10 == 0) {
          System.out.printf(Locale.ROOT, "    %d/%d probes, store p50 %d ms, api p50 %d ms%n", i + 1, probes,
              probe.storeLatency().getValueAtPercentile(50), probe.apiLatency().getValueAtPercentile(50));
        }
        Thread.sleep(20);
      }
    } finally {
      background.interrupt();
    }
    return new Result(probe.storeLatency(), probe.apiLatency());
  }

  @SuppressWarnings("unchecked")
  private static void html(Map<String, Object> report, List<List<String>> rows, Path file) throws Exception {
    HtmlReport html = new HtmlReport("Data availability against the bulk delay");
    html.paragraph(report.get("scenario") + ". Probes per run: " + report.get("probesPerRun")
        + ". All figures in milliseconds. Published anchors (Camunda 8.5, stock exporter + importer): 5.69 s at a 5 s "
        + "delay, 3.68 s at 1 s.");
    html.table(List.of("load", "bulk delay", "store p50", "store p90", "store p99", "store max", "API p50", "API p90",
        "API p99", "API max"), rows);
    Map<String, Map<String, Object>> runs = (Map<String, Map<String, Object>>) report.get("runs");
    for (int load : LOADS) {
      List<Double> x = new ArrayList<>();
      List<Double> p50 = new ArrayList<>();
      List<Double> p99 = new ArrayList<>();
      List<Double> apiP99 = new ArrayList<>();
      for (Map<String, Object> run : runs.values()) {
        if ((int) run.get("loadPerSecond") != load) {
          continue;
        }
        x.add(seconds((String) run.get("bulkDelay")));
        p50.add(((Number) ((Map<String, Object>) run.get("storeSearchMillis")).get("p50")).doubleValue());
        p99.add(((Number) ((Map<String, Object>) run.get("storeSearchMillis")).get("p99")).doubleValue());
        apiP99.add(((Number) ((Map<String, Object>) run.get("webappApiMillis")).get("p99")).doubleValue());
      }
      if (x.isEmpty()) {
        continue;
      }
      // ascending delay for the line chart
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < x.size(); i++) {
        order.add(i);
      }
      order.sort((a, b) -> Double.compare(x.get(a), x.get(b)));
      double[] xs = order.stream().mapToDouble(x::get).toArray();
      html.chart("Load " + load + " PI/s: latency against the bulk delay (x axis: delay in seconds)", "ms", List.of(
          new HtmlReport.Series("store p50", xs, order.stream().mapToDouble(p50::get).toArray()),
          new HtmlReport.Series("store p99", xs, order.stream().mapToDouble(p99::get).toArray()),
          new HtmlReport.Series("API p99", xs, order.stream().mapToDouble(apiP99::get).toArray())), List.of());
    }
    html.write(file);
    System.out.println("html report: " + file);
  }

  /** A bulk delay as given on the command line ("100ms", "1s", "PT0.25S"), in seconds. */
  public static double seconds(String duration) {
    return org.springframework.boot.convert.DurationStyle.detectAndParse(duration.trim()).toNanos() / 1e9;
  }
}
