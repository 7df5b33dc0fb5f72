package dev.flowpipe.benchmarks.scenario.baseline;

import dev.flowpipe.benchmarks.report.ReportWriter;
import dev.flowpipe.benchmarks.report.Percentiles;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Report;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.benchmarks.report.Figures;
import dev.flowpipe.benchmarks.report.HtmlReport;
import dev.flowpipe.benchmarks.load.Saturation;
import dev.flowpipe.benchmarks.load.Availability;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import dev.flowpipe.benchmarks.scenario.overhead.Overhead;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.worker.JobWorker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * The baseline of the benchmarks issue: Camunda's stock OpenSearch exporter (from the {@code camunda-zeebe:8.6.0}
 * distribution) side by side with ours, on one store that this JVM starts. Engine throughput with ours, stock, a no-op
 * exporter and none, in alternating runs on fresh nodes; and freshness on one node running both exporters at once:
 * completed to the raw ELEMENT_COMPLETED record findable in the stock exporter's process-instance indices, against
 * completed to COMPLETED in our read model.
 */
public final class Baseline {

  public static final String STOCK_CLASS = "io.camunda.zeebe.exporter.opensearch.OpensearchExporter";
  /** The stock exporter and the jars it needs that the node's own class path lacks, as named in the distribution. */
  private static final List<String> STOCK_JARS = List.of("zeebe-opensearch-exporter-8.6.0.jar",
      "opensearch-rest-client-*.jar", "httpasyncclient-*.jar", "httpclient-4*.jar", "httpcore-4*.jar",
      "httpcore-nio-*.jar", "commons-codec-*.jar", "camunda-search-client-connect-*.jar",
      "camunda-search-client-plugin-*.jar",
      "aws-request-signing-apache-interceptor-*.jar", "*-2.28.6.jar", "eventstream-*.jar",
      "reactive-streams-*.jar");
  public static final String STOCK_ARGUMENT = "--flowpipe.broker.additional-exporters.stock.";
  private static final ObjectMapper JSON = new ObjectMapper();

  private Baseline() {}

  /** Freshness of both exporters at one load: completed to found, per probe (ms). */
  public record Freshness(int loadPerSecond, int probes, String stockBulkDelay, String oursBulkDelay,
      Percentiles stockRawRecordMillis, Percentiles oursReadModelMillis) {}

  public static Report run(Path root, int seconds, int probes) throws Exception {
    String stockClasspath = stockExporterClasspath(root);
    Path work = ScratchDirectories.create("bench-baseline");
    Report report = Report.describing("baseline: Camunda's stock OpenSearch exporter 8.6.0 beside ours, one embedded OpenSearch "
        + "(1 GB heap) started by the benchmark for every run; each run on a fresh node with its own index prefixes");
    try (EmbeddedSearchStore opensearch = EmbeddedSearchStore.start(work.resolve("store"),
            EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(opensearch.url()))) {
      String url = opensearch.url();
      // 1. warm the store, then freshness, on one node running both exporters
      System.out.println("warm-up and freshness: node with ours (bulk delay 100 ms) and stock (bulk delay 1 s)");
      List<String> both = new ArrayList<>(ours(url, "fpw"));
      both.add("--flowpipe.flow-control.enabled=false");
      both.addAll(stock(url, "zeebe-record-w"));
      Freshness freshness;
      try (NodeProcess node = NodeProcess.start(root, work.resolve("fresh"), both, stockClasspath);
          ZeebeClient client = ScenarioNodes.client(node)) {
        ScenarioNodes.deploy(client);
        double warm = Saturation.run(client, Duration.ofSeconds(5), Duration.ofSeconds(10), 64);
        System.out.printf(Locale.ROOT, "warm-up: %.1f instances/s for 10 s%n", warm);
        Thread.sleep(5_000); // let both exporters drain the warm-up
        freshness = freshness(client, store, url, "fpw", "zeebe-record-w", 20, probes);
        report.body().typed("stockIndices", indices(url, "zeebe-record-w*"));
      }
      report.body().typed("freshness", freshness);
      // 2. throughput, alternating
      Map<String, List<Double>> results = Overhead.alternatingThroughput(root,
          List.of("ours", "stock", "noop", "none"), 10, seconds, new Overhead.ThroughputRun() {
            @Override
            public List<String> arguments(String mode, int round) {
              String tag = "r" + round + mode;
              List<String> args = new ArrayList<>(switch (mode) {
                case "ours" -> ours(url, "fp" + tag);
                case "stock" -> stock(url, "zeebe-record-" + tag);
                case "noop" -> List.of("--flowpipe.store.url=" + url, "--flowpipe.exporter.enabled=false",
                    "--flowpipe.broker.additional-exporters.noop.class-name=dev.flowpipe.exporter.NoopExporter");
                default -> List.of("--flowpipe.store.url=" + url, "--flowpipe.exporter.enabled=false");
              });
              // our lag-driven flow control would judge every mode by its own exporter lag (with no exporter at all
              // it throttled the engine to ~6 instances/s): off in every throughput run, so only the exporters differ
              args.add("--flowpipe.flow-control.enabled=false");
              return args;
            }

            @Override
            public Path workDirectory(String mode, int round) {
              return work.resolve("r" + round + mode);
            }
          }, stockClasspath);
      Map<String, Double> means = Figures.means(results);
      Section throughput = report.body().section("throughput").figure("measureSeconds", seconds)
          .figure("inFlight", 128).typed("instancesPerSecond", results).typed("meanInstancesPerSecond", means);
      Map<String, Double> ratios = new LinkedHashMap<>();
      ratios.put("oursOverNoop", means.get("ours") / means.get("noop"));
      ratios.put("stockOverNoop", means.get("stock") / means.get("noop"));
      ratios.put("oursOverNone", means.get("ours") / means.get("none"));
      ratios.put("stockOverNone", means.get("stock") / means.get("none"));
      ratios.put("noopOverNone", means.get("noop") / means.get("none"));
      ratios.put("oursOverStock", means.get("ours") / means.get("stock"));
      throughput.typed("ratios", ratios);
    }
    html(ReportWriter.tree(report), root.resolve("benchmarks/results/baseline.html"));
    return report;
  }

  /** The node arguments that add the stock exporter, writing to {@code url} under {@code prefix}, at its defaults. */
  public static List<String> stockExporterArguments(String url, String prefix) {
    return List.of(STOCK_ARGUMENT + "class-name=" + STOCK_CLASS, STOCK_ARGUMENT + "args.url=" + url,
        STOCK_ARGUMENT + "args.index.prefix=" + prefix);
  }

  private static List<String> ours(String url, String prefix) {
    return List.of("--flowpipe.store.url=" + url, "--flowpipe.exporter.index-prefix=" + prefix);
  }

  private static List<String> stock(String url, String prefix) {
    List<String> args = new ArrayList<>(stockExporterArguments(url, prefix));
    args.add(STOCK_ARGUMENT + "args.bulk.delay=1");
    if (!prefix.endsWith("w")) {
      args.addAll(List.of("--flowpipe.store.url=" + url, "--flowpipe.exporter.enabled=false"));
    }
    return args;
  }

  /**
   * Sequential probes at a background load; per probe, the time from the engine's completion timestamp to the raw
   * record being found by a search of the stock indices, and to COMPLETED in a search of our read model.
   */
  public static Freshness freshness(ZeebeClient client, SearchStore store, String url, String oursPrefix,
      String stockPrefix, int load, int probes) throws Exception {
    Histogram stockLatency = new Histogram(TimeUnit.MINUTES.toMillis(5), 3);
    Histogram oursLatency = new Histogram(TimeUnit.MINUTES.toMillis(5), 3);
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(oursPrefix);
    HttpClient http = HttpClient.newHttpClient();
    URI stockSearch = URI.create(url + "/" + stockPrefix + "_process-instance_*/_search");
    Thread background = Thread.ofPlatform().daemon().start(() -> Availability.backgroundLoad(client, load));
    try (JobWorker worker = client.newWorker().jobType(Saturation.JOB_TYPE)
        .handler((jobs, job) -> jobs.newCompleteCommand(job.getKey()).send())
        .maxJobsActive(256).pollInterval(Duration.ofMillis(10)).streamEnabled(true).open()) {
      Thread.sleep(2_000);
      for (int i = 0; i < probes; i++) {
        long key = Availability.createProbe(client);
        HttpRequest request = HttpRequest.newBuilder(stockSearch).timeout(Duration.ofSeconds(5))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"size\":1,\"query\":{\"bool\":{\"filter\":["
                + "{\"term\":{\"key\":" + key + "}},{\"term\":{\"intent\":\"ELEMENT_COMPLETED\"}}]}}}"))
            .build();
        long deadline = System.currentTimeMillis() + 60_000;
        long stockAt = -1;
        long oursAt = -1;
        long stockEnded = -1;
        long oursEnded = -1;
        while ((stockAt < 0 || oursAt < 0) && System.currentTimeMillis() < deadline) {
          if (stockAt < 0) {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode hits = response.statusCode() == 200
                ? JSON.readTree(response.body()).path("hits").path("hits") : JSON.createArrayNode();
            if (hits.size() > 0) {
              stockAt = System.currentTimeMillis();
              stockEnded = hits.get(0).path("_source").path("timestamp").asLong();
            }
          }
          if (oursAt < 0) {
            var found = store.findByField(index, "key", key, 1);
            if (!found.isEmpty() && "COMPLETED".equals(found.getFirst().get("state"))) {
              oursAt = System.currentTimeMillis();
              oursEnded = Instant.parse((String) found.getFirst().get("endDate")).toEpochMilli();
            }
          }
          Thread.sleep(10);
        }
        if (stockAt >= 0) {
          stockLatency.recordValue(Math.max(0, stockAt - stockEnded));
        }
        if (oursAt >= 0) {
          oursLatency.recordValue(Math.max(0, oursAt - oursEnded));
        }
        if ((i + 1) % 10 == 0) {
          System.out.printf(Locale.ROOT, "    %d/%d probes, stock p50 %d ms (%d found), ours p50 %d ms (%d found)%n",
              i + 1, probes, stockLatency.getValueAtPercentile(50), stockLatency.getTotalCount(),
              oursLatency.getValueAtPercentile(50), oursLatency.getTotalCount());
        }
        Thread.sleep(20);
      }
    } finally {
      background.interrupt();
    }
    Freshness result = new Freshness(load, probes, "1s", "100ms (node default)", Percentiles.of(stockLatency),
        Percentiles.of(oursLatency));
    System.out.println("freshness: " + result);
    return result;
  }

  /** "index docs.count" lines of the indices matching {@code pattern}, sorted by name. */
  public static List<String> indices(String url, String pattern) throws IOException, InterruptedException {
    String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/_cat/indices/" + pattern
        + "?h=index,docs.count&s=index")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    return body.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
  }

  /**
   * The stock exporter's class path: its jar and the dependencies the node lacks, taken from the
   * {@code camunda-zeebe:8.6.0} distribution archive in the local Maven repository into
   * {@code benchmarks/target/stock-exporter/}.
   */
  public static String stockExporterClasspath(Path root) throws IOException, InterruptedException {
    Path dir = root.resolve("benchmarks/target/stock-exporter");
    if (!Files.isRegularFile(dir.resolve("zeebe-opensearch-exporter-8.6.0.jar"))) {
      Path repo = Path.of(System.getProperty("maven.repo.local",
          Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
      Path archive = repo.resolve("io/camunda/camunda-zeebe/8.6.0/camunda-zeebe-8.6.0.tar.gz");
      if (!Files.isRegularFile(archive)) {
        throw new IllegalStateException("the stock exporter comes from " + archive + ", which the build downloads "
            + "(build-support/zeebe-distribution-jars); run ./mvnw -B -q -DskipTests install first");
      }
      Files.createDirectories(dir);
      List<String> command = new ArrayList<>(List.of("tar", "xzf", archive.toString(), "-C", dir.toString(),
          "--strip-components=2", "--wildcards"));
      STOCK_JARS.forEach(jar -> command.add("camunda-zeebe-8.6.0/lib/" + jar));
      Process tar = new ProcessBuilder(command).inheritIO().start();
      if (tar.waitFor() != 0) {
        throw new IllegalStateException("could not unpack the stock exporter from " + archive);
      }
    }
    try (Stream<Path> jars = Files.list(dir)) {
      return String.join(":", jars.filter(p -> p.toString().endsWith(".jar")).map(Path::toString).sorted().toList());
    }
  }

  @SuppressWarnings("unchecked")
  private static void html(Map<String, Object> report, Path file) throws IOException {
    HtmlReport html = new HtmlReport("Baseline: Camunda's stock OpenSearch exporter beside ours");
    html.paragraph((String) report.get("scenario"));
    Map<String, Object> freshness = (Map<String, Object>) report.get("freshness");
    html.heading("Freshness at " + freshness.get("loadPerSecond") + " PI/s (one node running both exporters)");
    html.paragraph("Stock: completed (record timestamp) to its raw ELEMENT_COMPLETED record found by a search of its "
        + "process-instance indices, bulk delay 1 s. Ours: completed (end date) to COMPLETED in a search of our read "
        + "model, bulk delay 100 ms. Milliseconds.");
    List<List<String>> rows = new ArrayList<>();
    for (String[] k : new String[][] {{"stock (raw record)", "stockRawRecordMillis"},
        {"ours (read model)", "oursReadModelMillis"}}) {
      Map<String, Object> p = (Map<String, Object>) freshness.get(k[1]);
      rows.add(List.of(k[0], String.valueOf(p.get("count")), String.valueOf(p.get("p50")),
          String.valueOf(p.get("p90")), String.valueOf(p.get("p99")), String.valueOf(p.get("max"))));
    }
    html.table(List.of("exporter", "probes", "p50", "p90", "p99", "max"), rows);
    Map<String, Object> throughput = (Map<String, Object>) report.get("throughput");
    if (throughput != null) {
      html.heading("Engine throughput (completed one-service-task instances/s, 128 in flight, "
          + throughput.get("measureSeconds") + " s measured after 10 s warm-up)");
      Map<String, List<Double>> runs = (Map<String, List<Double>>) throughput.get("instancesPerSecond");
      Map<String, Double> means = (Map<String, Double>) throughput.get("meanInstancesPerSecond");
      List<List<String>> trows = new ArrayList<>();
      runs.forEach((mode, values) -> {
        List<String> row = new ArrayList<>(List.of(mode));
        values.forEach(v -> row.add(String.format(Locale.ROOT, "%.1f", v)));
        row.add(String.format(Locale.ROOT, "%.1f", means.get(mode)));
        trows.add(row);
      });
      html.table(List.of("mode", "round 1", "round 2", "mean"), trows);
      List<List<String>> rrows = new ArrayList<>();
      ((Map<String, Double>) throughput.get("ratios")).forEach((k, v) ->
          rrows.add(List.of(k, String.format(Locale.ROOT, "%.2f", v))));
      html.table(List.of("ratio", "value"), rrows);
      double[] x = {1, 2};
      List<HtmlReport.Series> series = new ArrayList<>();
      runs.forEach((mode, values) -> series.add(new HtmlReport.Series(mode, x,
          values.stream().mapToDouble(Double::doubleValue).toArray())));
      html.chart("Throughput per round (x axis: round)", "instances/s", series, List.of());
    }
    html.write(file);
    System.out.println("html report: " + file);
  }
}
