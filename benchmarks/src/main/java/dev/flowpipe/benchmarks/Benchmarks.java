package dev.flowpipe.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.flowpipe.schema.embedded.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.systemtests.CrashSuite;
import dev.flowpipe.systemtests.ClusterCrashSuite;
import dev.flowpipe.systemtests.BatchRestart;
import dev.flowpipe.systemtests.EmbeddedStores;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Benchmark scenarios, one command each; every one writes a JSON report under {@code benchmarks/results/} and prints
 * a summary. Usage: {@code benchmarks/run <scenario> [options]}; see benchmarks/README.md.
 */
public final class Benchmarks {

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  // for the requests the scenarios make to a node's store between windows
  private static final HttpClient STORE_HTTP = HttpClient.newHttpClient();

  private Benchmarks() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println(
          "usage: benchmarks/run overhead|overhead-interleaved|cpu-cost|availability|bulk-delay-sweep|baseline|exporter-throughput|exporter-slow-link|slow-store|refresh-layout|store-settings|search-latency|flow-control|load|ramp|scaling|slow-network|crash|cluster-crash|import-drain|schema-migration|operations|legacy-availability|import-restart|batch-restart [options]\n"
              + "       benchmarks/run html overhead|availability|exporter-throughput|exporter-slow-link|slow-store|search-latency|crash|cluster-crash  (page from the saved JSON)");
      System.exit(2);
    }
    Path root = Path.of(System.getProperty("flowpipe.project.root", ".")).toAbsolutePath();
    if (args[0].equals("html")) {
      htmlFromSavedReport(root, args.length > 1 ? args[1] : "");
      return;
    }
    Map<String, Object> report = switch (args[0]) {
      case "overhead" ->
          overhead(root, args.length > 1 ? Integer.parseInt(args[1]) : 30,
              args.length > 2 ? List.of(args[2].split(",")) : List.of("ours", "noop", "none"),
              args.length > 3 ? Integer.parseInt(args[3]) : 60);
      case "overhead-interleaved" -> InterleavedOverhead.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 20,
          args.length > 2 ? List.of(args[2].split(",")) : List.of("ours", "noop", "none"),
          args.length > 3 ? Integer.parseInt(args[3]) : 120, args.length > 4 ? Integer.parseInt(args[4]) : 6);
      case "cpu-cost" -> CpuCost.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 50,
          args.length > 4 ? Integer.parseInt(args[4]) : 40, args.length > 2 ? Integer.parseInt(args[2]) : 30,
          args.length > 3 ? List.of(args[3].split(",")) : List.of("ours", "noop", "none"),
          args.length > 5 ? Integer.parseInt(args[5]) : 2);
      case "bulk-delay-sweep" -> BulkDelaySweep.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 20);
      case "baseline" -> Baseline.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 20,
          args.length > 2 ? Integer.parseInt(args[2]) : 60);
      case "availability" -> availability(root, args.length > 1 ? Integer.parseInt(args[1]) : 200,
          availabilityDelays(args.length > 2 ? args[2] : "20ms,100ms,1s"),
          Duration.ofSeconds(args.length > 3 ? Integer.parseInt(args[3]) : 2),
          args.length > 4 && !args[4].equals("-") ? storeNiceness(args[4]) : List.of(),
          args.length > 5 ? nodeSettingVariants(args[5]) : List.of());
      case "exporter-throughput" -> exporterThroughput(root, args.length > 1 ? Integer.parseInt(args[1]) : 20_000,
          bulkRefreshModes(args.length > 2 ? args[2] : "both"));
      case "exporter-slow-link" -> ExporterSlowLink.run(root, List.of(args).subList(1, args.length));
      case "slow-store" -> ExporterSlowLink.run(root, ExporterSlowLink.slowStoreArguments(
          List.of(args).subList(1, args.length)));
      case "flow-control" -> FlowControlScenario.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 40,
          args.length > 2 ? Double.parseDouble(args[2]) : 45);
      case "search-latency" ->
          searchLatency(root, args.length > 1 ? Integer.parseInt(args[1]) : 100_000,
              args.length > 2 ? Integer.parseInt(args[2]) : 500);
      case "refresh-layout" -> refreshLayout(root, args.length > 1 ? Integer.parseInt(args[1]) : 5,
          args.length > 2 ? Double.parseDouble(args[2]) : 10, args.length > 3 ? Integer.parseInt(args[3]) : 30,
          args.length > 4 ? Integer.parseInt(args[4]) : 3);
      case "store-settings" -> StoreSettingsAB.run(root, StoreSettingsAB.parseSettings(args.length > 1 ? args[1] : ""),
          args.length > 2 ? Integer.parseInt(args[2]) : 5, args.length > 3 ? Double.parseDouble(args[3]) : 10,
          args.length > 4 ? Integer.parseInt(args[4]) : 30, args.length > 5 ? Integer.parseInt(args[5]) : 3);
      case "load" -> LoadScenario.run(root, List.of(args).subList(1, args.length));
      case "ramp" -> ThroughputRamp.run(root, List.of(args).subList(1, args.length));
      case "scaling" -> ScalingRamp.run(root, List.of(args).subList(1, args.length));
      case "slow-network" -> SlowNetwork.run(root, List.of(args).subList(1, args.length),
          root.resolve("benchmarks/results/slow-network.html"));
      case "crash" -> CrashSuite.run(root, List.of(args).subList(1, args.length));
      case "cluster-crash" -> ClusterCrashSuite.run(root, List.of(args).subList(1, args.length));
      case "schema-migration" -> SchemaMigrationRun.run(root, args.length > 1 ? Integer.parseInt(args[1]) : 20_000);
      case "operations" -> OperationsScenario.run(root, List.of(args).subList(1, args.length));
      case "batch-restart" -> BatchRestart.run(root, List.of(args).subList(1, args.length));
      case "import-drain" -> ImportDrain.run(root, args.length > 1 ? Long.parseLong(args[1]) : 1_000_000,
          args.length > 2 ? Integer.parseInt(args[2]) : 20, List.of(args).subList(Math.min(3, args.length), args.length));
      case "legacy-availability" -> asMap(LegacyAvailability.run(root,
          LegacyAvailabilitySettings.parse(List.of(args).subList(1, args.length))));
      case "import-restart" -> asMap(ImportRestart.run(root,
          ImportRestartSettings.parse(List.of(args).subList(1, args.length))));
      default -> throw new IllegalArgumentException("unknown scenario '" + args[0] + "'");
    };
    report.put("date", LocalDate.now().toString());
    report.put("machine", Runtime.getRuntime().availableProcessors() + " cores, Java " + Runtime.version());
    Path out = root.resolve("benchmarks/results/" + args[0] + ".json");
    Files.createDirectories(out.getParent());
    JSON.writeValue(out.toFile(), report);
    // their windows (load, ramp), differences (crash) or lag samples (import-restart) make the JSON long; the summary
    // was printed
    if (!List.of("load", "ramp", "crash", "cluster-crash", "slow-network", "import-restart").contains(args[0])) {
      System.out.println(JSON.writeValueAsString(report));
    }
    System.out.println("report: " + out);
    if (ReportPages.SCENARIOS.contains(args[0])) {
      ReportPages.write(args[0], report, root.resolve("benchmarks/results/" + args[0] + ".html"));
    }
    // the crash suite found a difference (the report says which); otherwise exit even if a library left a thread
    System.exit(Boolean.FALSE.equals(report.get("passed")) ? 1 : 0);
  }

  /** A typed report as the JSON tree the runner adds the date and machine to. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> asMap(Record report) {
    return JSON.convertValue(report, LinkedHashMap.class);
  }

  /** Draws the HTML page of a JSON-only scenario again from its saved report. */
  @SuppressWarnings("unchecked")
  private static void htmlFromSavedReport(Path root, String scenario) throws Exception {
    if (!ReportPages.SCENARIOS.contains(scenario)) {
      throw new IllegalArgumentException("html: scenario must be one of " + ReportPages.SCENARIOS + ", was '"
          + scenario + "'");
    }
    Path json = root.resolve("benchmarks/results/" + scenario + ".json");
    ReportPages.write(scenario, JSON.readValue(json.toFile(), Map.class),
        root.resolve("benchmarks/results/" + scenario + ".html"));
  }

  /**
   * Engine throughput with our exporter, a no-op exporter, and none, in alternating runs. Flow control is off in every
   * mode: it exists to slow the engine down when the exporter lags, which would measure the controller, not the cost.
   */
  static Map<String, Object> overhead(Path root, int seconds, List<String> selected, int warmUpSeconds)
      throws Exception {
    Map<String, List<String>> known = exporterModes(selected);
    Map<String, List<String>> modes = new LinkedHashMap<>();
    for (String mode : selected) {
      List<String> arguments = new ArrayList<>(known.get(mode));
      arguments.add("--flowpipe.flow-control.enabled=false");
      modes.put(mode, arguments);
    }
    Map<String, List<Double>> results = alternatingThroughput(root, List.copyOf(modes.keySet()), warmUpSeconds,
        seconds, new ThroughputRun() {
          @Override
          public List<String> arguments(String mode, int round) {
            return modes.get(mode);
          }

          @Override
          public Path workDirectory(String mode, int round) throws Exception {
            return ScratchDirectories.create("bench-" + mode);
          }
        }, extraClasspath(root, selected));
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("scenario", "exporter overhead: engine throughput (one service task per instance, 128 in flight), "
        + "flow control off in every mode");
    report.put("warmUpSeconds", warmUpSeconds);
    report.put("measureSeconds", seconds);
    report.put("instancesPerSecond", results);
    Map<String, Double> means = means(results);
    report.put("meanInstancesPerSecond", means);
    if (means.containsKey("ours") && means.containsKey("noop") && means.containsKey("none")) {
      report.put("oursOverNoop", means.get("ours") / means.get("noop"));
      report.put("oursOverNone", means.get("ours") / means.get("none"));
      report.put("noopOverNone", means.get("noop") / means.get("none"));
    }
    return report;
  }

  /**
   * The node arguments of the exporter modes the throughput and CPU scenarios compare (ours, variants of ours that
   * show where its cost comes from, Camunda's stock exporter, a no-op exporter, none), checked against
   * {@code selected}.
   */
  static Map<String, List<String>> exporterModes(List<String> selected) {
    Map<String, List<String>> known = new LinkedHashMap<>();
    known.put("ours", List.of());
    known.put("ours-no-bulk-refresh", List.of("--flowpipe.exporter.bulk.refresh=false"));
    known.put("ours-refresh-1s", List.of("--flowpipe.exporter.index-refresh-interval=1s"));
    known.put("ours-refresh-1s-no-bulk-refresh",
        List.of("--flowpipe.exporter.bulk.refresh=false", "--flowpipe.exporter.index-refresh-interval=1s"));
    known.put("ours-io-threads-4", List.of("--flowpipe.broker.io-threads=4"));
    known.put("ours-bulk-delay-1s", List.of("--flowpipe.exporter.bulk.delay=1s"));
    known.put("ours-store-nice-10", List.of("--flowpipe.store.embedded.niceness=10"));
    known.put("ours-store-nice-0", List.of("--flowpipe.store.embedded.niceness=0"));
    known.put("ours-store-nice-19", List.of("--flowpipe.store.embedded.niceness=19"));
    // the store's JVM on a throughput collector instead of G1: no concurrent marking or refinement threads on 2 cores
    known.put("ours-store-parallel-gc", List.of("--flowpipe.store.embedded.jvm-options=-XX:+UseParallelGC"));
    known.put("ours-store-serial-gc", List.of("--flowpipe.store.embedded.jvm-options=-XX:+UseSerialGC"));
    known.put("ours-in-flight-1", List.of("--flowpipe.exporter.bulk.in-flight=1"));
    known.put("ours-in-flight-2", List.of("--flowpipe.exporter.bulk.in-flight=2"));
    // Camunda's stock OpenSearch exporter (raw records) in place of ours, writing to the node's embedded store: at its
    // own defaults (a 5 s bulk delay), and at the 1 s its successors default to
    known.put("stock", stockExporter());
    List<String> stockAtOneSecond = new ArrayList<>(stockExporter());
    stockAtOneSecond.add(Baseline.STOCK_ARGUMENT + "args.bulk.delay=1");
    known.put("stock-delay-1s", List.copyOf(stockAtOneSecond));
    known.put("noop", List.of("--flowpipe.exporter.enabled=false",
        "--flowpipe.broker.additional-exporters.noop.class-name=dev.flowpipe.exporter.NoopExporter"));
    known.put("none", List.of("--flowpipe.exporter.enabled=false"));
    for (String mode : selected) {
      if (!known.containsKey(mode)) {
        throw new IllegalArgumentException("unknown mode '" + mode + "'; known: " + known.keySet());
      }
    }
    return known;
  }

  /** The stock exporter beside no exporter of ours; the node resolves the placeholder to its store's port. */
  private static List<String> stockExporter() {
    List<String> arguments = new ArrayList<>(List.of("--flowpipe.exporter.enabled=false"));
    arguments.addAll(Baseline.stockExporterArguments("http://127.0.0.1:${flowpipe.store.embedded.http-port}",
        "zeebe-record"));
    return List.copyOf(arguments);
  }

  /** Whether the mode has an exporter that writes to the store (all but {@code noop} and {@code none}). */
  private static boolean writes(String mode) {
    return !mode.equals("noop") && !mode.equals("none");
  }

  private static boolean isStock(String mode) {
    return mode.startsWith("stock");
  }

  /**
   * The documents in the node's store outside its system indices: proof that a mode meant to export did, so that an
   * exporter that silently wrote nothing cannot pass for a cheap one. Fails when an exporting mode wrote none.
   */
  static long documentsWritten(NodeProcess node, String mode) throws IOException, InterruptedException {
    String store = node.storeUrl();
    refresh(store);
    long documents = Baseline.indices(store, "*").stream().map(l -> l.split("\\s+"))
        .filter(f -> f.length == 2 && !f[0].startsWith(".")).mapToLong(f -> Long.parseLong(f[1])).sum();
    if (writes(mode) && documents == 0) {
      throw new IllegalStateException("mode '" + mode + "' wrote no documents to its store; see the node's log");
    }
    return documents;
  }

  /**
   * How far the mode's exporter is behind the engine, in ms: now minus the newest engine timestamp its store holds
   * (after a refresh, so what is written counts, not only what is visible). Null for the modes that write nothing. An
   * exporter that cannot keep up costs the engine less in a window while its backlog grows, so a throughput ratio
   * means nothing without this beside it.
   */
  static Long exporterLagMillis(NodeProcess node, String mode) throws IOException, InterruptedException {
    if (!writes(mode)) {
      return null;
    }
    boolean stock = isStock(mode);
    String store = node.storeUrl();
    refresh(store);
    String aggregations = stock
        ? "{\"newest\":{\"max\":{\"field\":\"timestamp\"}}}"
        : "{\"newest\":{\"max\":{\"field\":\"startDate\"}},\"newestEnd\":{\"max\":{\"field\":\"endDate\"}}}";
    String index = stock ? "/zeebe-record*" : "/flowpipe-read-model-v2";
    String body = STORE_HTTP.send(HttpRequest.newBuilder(URI.create(store + index + "/_search"))
        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"size\":0,\"aggs\":" + aggregations + "}")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    var found = JSON.readTree(body).path("aggregations");
    double newest = Math.max(found.path("newest").path("value").asDouble(0), found.path("newestEnd").path("value")
        .asDouble(0));
    if (newest <= 0) {
      throw new IllegalStateException("mode '" + mode + "': no engine timestamp in its store: " + body);
    }
    return System.currentTimeMillis() - (long) newest;
  }

  /**
   * Makes all that is written searchable. An index nobody searches skips its scheduled refreshes (OpenSearch's search
   * idle shards), so without this the stock exporter's indices showed a small part of what it had written.
   */
  private static void refresh(String store) throws IOException, InterruptedException {
    STORE_HTTP.send(HttpRequest.newBuilder(URI.create(store + "/_refresh"))
        .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.discarding());
  }

  /** The class path a mode's node needs beyond its own: the stock exporter's jars for the stock modes, else none. */
  static String extraClasspath(Path root, Collection<String> modes) throws IOException, InterruptedException {
    return modes.stream().anyMatch(Benchmarks::isStock) ? Baseline.stockExporterClasspath(root) : null;
  }

  /** The bulk delays an availability run measures, comma-separated, each checked ("100ms", "1s", "PT0.25S"). */
  static List<String> availabilityDelays(String value) {
    List<String> delays = List.of(value.split(","));
    for (String delay : delays) {
      try {
        org.springframework.boot.convert.DurationStyle.detectAndParse(delay);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("availability: bulk delay '" + delay + "' is not a duration like 100ms, 1s"
            + " or PT0.25S", e);
      }
    }
    return delays;
  }

  /**
   * One node setting with the values to run availability with, as {@code key=value1|value2} (e.g.
   * {@code flowpipe.exporter.index-refresh-interval=100ms|1s}): one {@code key=value} per value. The node checks
   * the values when it starts.
   */
  static List<String> nodeSettingVariants(String value) {
    int equals = value.indexOf('=');
    if (equals <= 0 || !value.startsWith("flowpipe.") || equals == value.length() - 1) {
      throw new IllegalArgumentException("availability: node setting variants must look like "
          + "flowpipe.some.key=value1|value2, was '" + value + "'");
    }
    String key = value.substring(0, equals);
    List<String> variants = new ArrayList<>();
    for (String one : value.substring(equals + 1).split("\\|")) {
      if (one.isBlank()) {
        throw new IllegalArgumentException("availability: an empty value in '" + value + "'");
      }
      variants.add(key + "=" + one);
    }
    return variants;
  }

  /** Store nicenesses to run availability with, comma-separated, each 0-19 ("0,10"). */
  static List<Integer> storeNiceness(String value) {
    List<Integer> values = new ArrayList<>();
    for (String item : value.split(",")) {
      int niceness;
      try {
        niceness = Integer.parseInt(item.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("availability: store niceness '" + item + "' is not a number from 0 to 19");
      }
      if (niceness < 0 || niceness > EmbeddedSearchStore.MAX_NICENESS) {
        throw new IllegalArgumentException("availability: store niceness must be 0 to 19, was " + niceness);
      }
      values.add(niceness);
    }
    return values;
  }

  /**
   * Availability per bulk delay; with {@code nicenesses}, once per store niceness for each delay, one after another
   * (an empty list: the node's default niceness, reported under the delay alone).
   */
  static Map<String, Object> availability(Path root, int probes, List<String> delays, Duration warmUp,
      List<Integer> nicenesses, List<String> settingVariants) throws Exception {
    if (warmUp.isNegative()) {
      throw new IllegalArgumentException("availability: warm-up seconds must not be negative, was " + warmUp.toSeconds());
    }
    Map<String, Object> byDelay = new LinkedHashMap<>();
    List<Integer> variants = nicenesses.isEmpty() ? Collections.singletonList(null) : nicenesses;
    List<String> settings = settingVariants.isEmpty() ? Collections.singletonList(null) : settingVariants;
    for (String delay : delays) {
      for (Integer niceness : variants) {
        for (String setting : settings) {
          String label = delay + (niceness == null ? "" : ", store niceness " + niceness)
              + (setting == null ? "" : ", " + setting);
          List<String> nodeArgs = new ArrayList<>(List.of("--flowpipe.exporter.bulk.delay=" + delay));
          if (niceness != null) {
            nodeArgs.add("--flowpipe.store.embedded.niceness=" + niceness);
          }
          if (setting != null) {
            nodeArgs.add("--" + setting);
          }
          byDelay.put(label, availabilityAt(root, probes, label, nodeArgs, warmUp));
        }
      }
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("scenario", "data availability: instance completed (engine end date) to COMPLETED in a store search, "
        + "under 50 PI/s background load; index refresh interval as the node's default");
    report.put("probes", probes);
    report.put("warmUpSeconds", Math.max(2, warmUp.toSeconds()));
    report.put("latencyMillisByBulkDelay", byDelay);
    return report;
  }

  private static Map<String, Object> availabilityAt(Path root, int probes, String delay, List<String> nodeArgs,
      Duration warmUp) throws Exception {
    System.out.printf("bulk delay %s: starting node%n", delay);
    Path work = ScratchDirectories.create("bench-availability");
    try (NodeProcess node = NodeProcess.start(root, work, nodeArgs);
        ZeebeClient client = client(node);
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.storeUrl()))) {
      deploy(client);
      System.out.printf("bulk delay %s: %d s of background load before the first probe%n", delay,
          Math.max(2, warmUp.toSeconds()));
      Histogram latencies = Availability.run(client, store, "flowpipe", 50, probes, warmUp);
      Map<String, Object> result = percentiles(latencies);
      // the exporter's own view: engine timestamp of the oldest record in a flush to the flush being durable
      String prometheus = node.text("/actuator/prometheus");
      result.put("exporterExportLatencyMillis", exporterLatency(prometheus));
      // its parts: the broker's (engine write to the exporter) and the store's (one bulk, flushed on the delay)
      result.put("exporterArrivalDelayMillis",
          quantilesMillis(prometheus, "flowpipe_exporter_arrival_delay_seconds", ""));
      result.put("delayFlushDurationMillis",
          quantilesMillis(prometheus, "flowpipe_exporter_flush_duration_seconds", "reason=\"delay\""));
      System.out.printf("bulk delay %s: %s%n", delay, result);
      return result;
    }
  }


  /** The web app's search latency over {@code instances} process instances in the embedded OpenSearch. */
  static Map<String, Object> searchLatency(Path root, int instances, int runs) throws Exception {
    try (EmbeddedSearchStore node = EmbeddedSearchStore.start(ScratchDirectories.create("bench-search"), EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.url()))) {
      System.out.printf("loading %d instances%n", instances);
      double loadSeconds = SearchLatency.load(store, instances);
      System.out.printf("loaded in %.1f s; measuring %d runs of each query%n", loadSeconds, runs);
      Map<String, Object> report = new LinkedHashMap<>();
      report.put("scenario", "search latency through the web app's HTTP API (standalone app in this JVM, one client "
          + "thread, sequential requests, answer parsed) over the embedded OpenSearch (1 GB heap) on the same machine");
      report.put("processInstances", instances);
      report.put("documents", Map.of(
          "processInstances", store.count(ReadModelIndex.PROCESS_INSTANCE.indexName("bench")),
          "elementInstances", store.count(ReadModelIndex.FLOW_NODE_INSTANCE.indexName("bench")),
          "variables", store.count(ReadModelIndex.VARIABLE.indexName("bench")),
          "incidents", store.count(ReadModelIndex.INCIDENT.indexName("bench"))));
      report.put("loadSeconds", Math.round(loadSeconds * 10) / 10.0);
      report.put("runsPerQuery", runs);
      report.putAll(SearchLatency.measure(node.url(), instances, runs));
      return report;
    }
  }

  /** The bulk-refresh settings an exporter-throughput run alternates: {@code on}, {@code off} or {@code both}. */
  static List<Boolean> bulkRefreshModes(String value) {
    return switch (value) {
      case "on" -> List.of(true);
      case "off" -> List.of(false);
      case "both" -> List.of(true, false);
      default -> throw new IllegalArgumentException(
          "exporter-throughput: bulk refresh must be on, off or both, was '" + value + "'");
    };
  }

  /**
   * Records per second through our exporter alone into the embedded OpenSearch: three rounds, each running every
   * bulk-refresh setting once on a fresh index prefix, so drift and JIT warm-up hit the settings alike.
   */
  static Map<String, Object> exporterThroughput(Path root, int instances, List<Boolean> bulkRefreshModes)
      throws Exception {
    try (EmbeddedSearchStore store = EmbeddedSearchStore.start(ScratchDirectories.create("bench-store"), EmbeddedStores.settings(root))) {
      System.out.println("warm-up: 2000 instances");
      ExporterThroughput.run(store.url(), "warmup", 2_000, 1000);
      List<Map<String, Object>> runs = new ArrayList<>();
      for (int run = 1; run <= 3; run++) {
        for (boolean bulkRefresh : bulkRefreshModes) {
          var result = ExporterThroughput.run(store.url(), "run" + run + (bulkRefresh ? "-refresh" : "-norefresh"),
              instances, 1000, bulkRefresh);
          System.out.printf("run %d, bulk refresh %s: %d records in %.1f s = %.0f records/s%n", run,
              bulkRefresh ? "on" : "off", result.records(), result.seconds(), result.recordsPerSecond());
          runs.add(Map.of("round", run, "bulkRefresh", bulkRefresh, "records", result.records(), "documents",
              result.documents(), "seconds", result.seconds(), "recordsPerSecond", result.recordsPerSecond()));
        }
      }
      Map<String, Object> report = new LinkedHashMap<>();
      report.put("scenario", "exporter throughput: synthetic one-task instances (13 records, 6 documents each), "
          + "bulk size 1000, delay 100ms, bulk refresh " + bulkRefreshModes + " in each round, into the embedded "
          + "OpenSearch (1 GB heap) on the same machine");
      report.put("instancesPerRun", instances);
      report.put("runs", runs);
      return report;
    }
  }

  /**
   * The store's CPU and bulk time with one index per entity against the shared read-model index, every bulk asked to
   * refresh: a 20 s warm-up of each layout, then {@code rounds} rounds running each layout for {@code phaseSeconds}.
   */
  static Map<String, Object> refreshLayout(Path root, int instancesPerBulk, double bulksPerSecond, int phaseSeconds,
      int rounds) throws Exception {
    if (instancesPerBulk < 1 || bulksPerSecond <= 0 || phaseSeconds < 1 || rounds < 1) {
      throw new IllegalArgumentException("refresh-layout: instances per bulk, bulks/s, phase seconds and rounds must "
          + "be positive, were " + instancesPerBulk + ", " + bulksPerSecond + ", " + phaseSeconds + ", " + rounds);
    }
    try (EmbeddedSearchStore node =
            EmbeddedSearchStore.start(ScratchDirectories.create("bench-store"), EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.url()))) {
      ProcessHandle process = ProcessHandle.of(node.pid()).orElseThrow();
      java.util.function.LongSupplier cpu = () -> CpuCost.cpuNanos(process);
      Map<RefreshLayout.Layout, Map<ReadModelIndex, String>> names = new LinkedHashMap<>();
      for (RefreshLayout.Layout layout : RefreshLayout.Layout.values()) {
        names.put(layout, RefreshLayout.prepare(store, "layout-" + layout.name().toLowerCase().replace('_', '-'),
            layout, "100ms"));
      }
      long[] keys = {0};
      long[] position = {0};
      for (RefreshLayout.Layout layout : RefreshLayout.Layout.values()) {
        System.out.println("warm-up: " + layout + " for 20 s");
        RefreshLayout.phase(store, names.get(layout), layout, 0, instancesPerBulk, bulksPerSecond,
            Duration.ofSeconds(20), cpu, keys, position);
      }
      List<RefreshLayout.Phase> phases = new ArrayList<>();
      for (int round = 1; round <= rounds; round++) {
        for (RefreshLayout.Layout layout : RefreshLayout.Layout.values()) {
          var phase = RefreshLayout.phase(store, names.get(layout), layout, round, instancesPerBulk, bulksPerSecond,
              Duration.ofSeconds(phaseSeconds), cpu, keys, position);
          System.out.printf("round %d, %-10s: %d bulks, %d documents, store %.3f cores, bulk mean %.1f ms, p99 %.1f"
                  + " ms%n", round, layout, phase.bulks(), phase.documents(), phase.storeCores(),
              phase.meanBulkMillis(), phase.p99BulkMillis());
          phases.add(phase);
        }
      }
      Map<String, Object> means = new LinkedHashMap<>();
      Map<RefreshLayout.Layout, Double> storeCores = new LinkedHashMap<>();
      for (RefreshLayout.Layout layout : RefreshLayout.Layout.values()) {
        var mine = phases.stream().filter(p -> p.layout() == layout).toList();
        storeCores.put(layout, mine.stream().mapToDouble(RefreshLayout.Phase::storeCores).average().orElseThrow());
        means.put(layout.name(), Map.of(
            "storeCores", round3(storeCores.get(layout)),
            "meanBulkMillis", round3(mine.stream().mapToDouble(RefreshLayout.Phase::meanBulkMillis).average()
                .orElseThrow())));
      }
      double ratio = storeCores.get(RefreshLayout.Layout.SHARED) / storeCores.get(RefreshLayout.Layout.PER_ENTITY);
      System.out.printf("store CPU, shared / per entity: %.2f%n", ratio);
      Map<String, Object> report = new LinkedHashMap<>();
      report.put("scenario", "index layout under bulk refresh: bulks of " + instancesPerBulk + " one-task instances ("
          + "7 documents each) at " + bulksPerSecond + " bulks/s, refresh=true on each, into one index per entity "
          + "(PER_ENTITY) or the shared read-model index (SHARED), alternating in one embedded OpenSearch (1 GB heap, "
          + "index refresh interval 100ms)");
      report.put("phaseSeconds", phaseSeconds);
      report.put("phases", phases);
      report.put("means", means);
      report.put("storeCpuSharedOverPerEntity", round3(ratio));
      return report;
    }
  }

  static double round3(double value) {
    return Math.round(value * 1000) / 1000.0;
  }

  /** The p50 and p99 of the exporter's export-latency timer, from the node's Prometheus text. */
  static Map<String, Object> exporterLatency(String prometheus) {
    return quantilesMillis(prometheus, "flowpipe_exporter_export_latency_seconds", "");
  }

  /**
   * The p50 and p99 of one timer in the node's Prometheus text, in ms, interpolated in its histogram's buckets (see
   * {@link PrometheusHistogram}: over the node's life so far), and its "max" (the largest value of the timer's last
   * few minutes: Micrometer's decaying maximum); only series whose lines contain {@code label} (e.g.
   * {@code reason="delay"}; "" for all).
   */
  static Map<String, Object> quantilesMillis(String prometheus, String metric, String label) {
    Map<String, Object> quantiles = new LinkedHashMap<>();
    PrometheusHistogram histogram = PrometheusHistogram.parse(prometheus, metric, label);
    if (histogram.count() > 0) {
      quantiles.put("p50", Math.round(histogram.quantile(0.5) * 1000));
      quantiles.put("p99", Math.round(histogram.quantile(0.99) * 1000));
    }
    Long max = null;
    for (String line : prometheus.split("\n")) {
      if (line.contains(label) && line.startsWith(metric + "_max{")) {
        max = Math.max(max == null ? 0 : max, millis(line));
      }
    }
    if (max != null) {
      quantiles.put("max", max);
    }
    return quantiles;
  }

  /** The value of one Prometheus sample line, in seconds, as ms. */
  private static long millis(String line) {
    return Math.round(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)) * 1000);
  }

  static ZeebeClient client(NodeProcess node) {
    return ZeebeClient.newClientBuilder().grpcAddress(node.gateway()).usePlaintext()
        .defaultRequestTimeout(Duration.ofSeconds(30)).build();
  }

  static void deploy(ZeebeClient client) throws InterruptedException {
    // the node reports ready a moment before the gateway knows the partition: retry UNAVAILABLE for a while
    for (int attempt = 1; ; attempt++) {
      try {
        deployOnce(client);
        return;
      } catch (io.camunda.zeebe.client.api.command.ClientStatusException e) {
        if (e.getStatusCode() != io.grpc.Status.Code.UNAVAILABLE || attempt >= 50) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  private static void deployOnce(ZeebeClient client) {
    client.newDeployResourceCommand()
        .addProcessModel(Bpmn.createExecutableProcess(Saturation.PROCESS).startEvent()
            .serviceTask("work", t -> t.zeebeJobType(Saturation.JOB_TYPE)).endEvent().done(), "bench.bpmn")
        .addProcessModel(Bpmn.createExecutableProcess(Availability.PROBE).startEvent().endEvent().done(), "probe.bpmn")
        .send().join();
  }

  static Map<String, Object> percentiles(Histogram histogram) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("count", histogram.getTotalCount());
    p.put("p50", histogram.getValueAtPercentile(50));
    p.put("p90", histogram.getValueAtPercentile(90));
    p.put("p99", histogram.getValueAtPercentile(99));
    p.put("max", histogram.getMaxValue());
    return p;
  }

  /** One run of the alternating rounds: the node's arguments and data directory for a mode in a round. */
  interface ThroughputRun {
    List<String> arguments(String mode, int round);

    Path workDirectory(String mode, int round) throws Exception;
  }

  /**
   * Saturation throughput (completed instances per second, 128 in flight, after a warm-up at the same load) of each
   * mode, each run on a fresh node, in two alternating rounds so drift hits every mode alike. Prints the exporter's
   * flush statistics of each run, where it has any, to show what the store was asked to do.
   */
  static Map<String, List<Double>> alternatingThroughput(Path root, List<String> modes, int warmUpSeconds,
      int seconds, ThroughputRun run, String extraClasspath) throws Exception {
    Map<String, List<Double>> results = new LinkedHashMap<>();
    modes.forEach(m -> results.put(m, new ArrayList<>()));
    int rounds = 2;
    for (int round = 1; round <= rounds; round++) {
      for (String mode : modes) {
        System.out.printf("round %d/%d, %s: starting node%n", round, rounds, mode);
        try (NodeProcess node = NodeProcess.start(
                root, run.workDirectory(mode, round), run.arguments(mode, round), extraClasspath);
            ZeebeClient client = client(node)) {
          deploy(client);
          double perSecond =
              Saturation.run(client, Duration.ofSeconds(warmUpSeconds), Duration.ofSeconds(seconds), 128);
          results.get(mode).add(perSecond);
          System.out.printf(java.util.Locale.ROOT, "round %d/%d, %s: %.1f completed instances/s %s%n", round, rounds,
              mode, perSecond, flushStatistics(node.text("/actuator/prometheus")));
        }
      }
    }
    return results;
  }

  /** Bulks by reason (count, mean documents, mean seconds) from the exporter's Prometheus text; empty without one. */
  static Map<String, String> flushStatistics(String prometheus) {
    Map<String, Double> values = new LinkedHashMap<>();
    for (String line : prometheus.split("\n")) {
      if (line.startsWith("flowpipe_exporter_flush_duration_seconds_count{")
          || line.startsWith("flowpipe_exporter_flush_duration_seconds_sum{")
          || line.startsWith("flowpipe_exporter_bulk_size_documents_count{")
          || line.startsWith("flowpipe_exporter_bulk_size_documents_sum{")) {
        String name = line.substring("flowpipe_exporter_".length(), line.indexOf('{'));
        String reason = line.contains("reason=\"") ? line.replaceAll(".*reason=\"([^\"]+)\".*", "$1") : "all";
        values.merge(name + "/" + reason, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), Double::sum);
      }
    }
    Map<String, String> statistics = new LinkedHashMap<>();
    values.forEach((key, count) -> {
      if (key.startsWith("flush_duration_seconds_count/")) {
        String reason = key.substring(key.indexOf('/') + 1);
        double sum = values.getOrDefault("flush_duration_seconds_sum/" + reason, 0.0);
        statistics.put(reason, String.format(java.util.Locale.ROOT, "%.0f bulks, %.1f ms", count,
            count == 0 ? 0 : 1000 * sum / count));
      }
    });
    double bulks = values.getOrDefault("bulk_size_documents_count/all", 0.0);
    if (bulks > 0) {
      statistics.put("documentsPerBulk",
          String.format(java.util.Locale.ROOT, "%.1f", values.get("bulk_size_documents_sum/all") / bulks));
    }
    return statistics;
  }

  static Map<String, Double> means(Map<String, List<Double>> results) {
    Map<String, Double> means = new LinkedHashMap<>();
    results.forEach((mode, values) ->
        means.put(mode, values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN)));
    return means;
  }
}
