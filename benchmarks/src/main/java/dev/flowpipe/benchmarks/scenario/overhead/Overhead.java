package dev.flowpipe.benchmarks.scenario.overhead;

import dev.flowpipe.benchmarks.report.Report;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.benchmarks.report.Figures;
import dev.flowpipe.benchmarks.prometheus.PrometheusText;
import dev.flowpipe.benchmarks.load.Saturation;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import dev.flowpipe.benchmarks.scenario.baseline.Baseline;
import io.camunda.zeebe.client.ZeebeClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What our exporter costs the engine: saturation throughput per exporter mode (ours, no-op, none, the stock
 * exporter), each mode on a fresh node, in alternating rounds.
 */
public final class Overhead {

  // for the requests the scenarios make to a node's store between windows
  private static final HttpClient STORE_HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

  private Overhead() {}

  /**
   * Engine throughput with our exporter, a no-op exporter, and none, in alternating runs. Flow control is off in every
   * mode: it exists to slow the engine down when the exporter lags, which would measure the controller, not the cost.
   */
  public static Report overhead(Path root, int seconds, List<String> selected, int warmUpSeconds)
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
    Report report = Report.describing("exporter overhead: engine throughput (one service task per instance, 128 in flight), "
        + "flow control off in every mode");
    Map<String, Double> means = Figures.means(results);
    report.body().figure("warmUpSeconds", warmUpSeconds).figure("measureSeconds", seconds)
        .typed("instancesPerSecond", results).typed("meanInstancesPerSecond", means);
    if (means.containsKey("ours") && means.containsKey("noop") && means.containsKey("none")) {
      report.body().figure("oursOverNoop", means.get("ours") / means.get("noop"))
          .figure("oursOverNone", means.get("ours") / means.get("none"))
          .figure("noopOverNone", means.get("noop") / means.get("none"));
    }
    return report;
  }

  /**
   * The node arguments of the exporter modes the throughput and CPU scenarios compare (ours, variants of ours that
   * show where its cost comes from, Camunda's stock exporter, a no-op exporter, none), checked against
   * {@code selected}.
   */
  public static Map<String, List<String>> exporterModes(List<String> selected) {
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
  public static List<String> stockExporter() {
    List<String> arguments = new ArrayList<>(List.of("--flowpipe.exporter.enabled=false"));
    arguments.addAll(Baseline.stockExporterArguments("http://127.0.0.1:${flowpipe.store.embedded.http-port}",
        "zeebe-record"));
    return List.copyOf(arguments);
  }

  /** Whether the mode has an exporter that writes to the store (all but {@code noop} and {@code none}). */
  public static boolean writes(String mode) {
    return !mode.equals("noop") && !mode.equals("none");
  }

  public static boolean isStock(String mode) {
    return mode.startsWith("stock");
  }

  /**
   * The documents in the node's store outside its system indices: proof that a mode meant to export did, so that an
   * exporter that silently wrote nothing cannot pass for a cheap one. Fails when an exporting mode wrote none.
   */
  public static long documentsWritten(NodeProcess node, String mode) throws IOException, InterruptedException {
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
  public static Long exporterLagMillis(NodeProcess node, String mode) throws IOException, InterruptedException {
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
  public static void refresh(String store) throws IOException, InterruptedException {
    STORE_HTTP.send(HttpRequest.newBuilder(URI.create(store + "/_refresh"))
        .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.discarding());
  }

  /** The class path a mode's node needs beyond its own: the stock exporter's jars for the stock modes, else none. */
  public static String extraClasspath(Path root, Collection<String> modes) throws IOException, InterruptedException {
    return modes.stream().anyMatch(Overhead::isStock) ? Baseline.stockExporterClasspath(root) : null;
  }

  /** One run of the alternating rounds: the node's arguments and data directory for a mode in a round. */
  public interface ThroughputRun {
    List<String> arguments(String mode, int round);

    Path workDirectory(String mode, int round) throws Exception;
  }

  /**
   * Saturation throughput (completed instances per second, 128 in flight, after a warm-up at the same load) of each
   * mode, each run on a fresh node, in two alternating rounds so drift hits every mode alike. Prints the exporter's
   * flush statistics of each run, where it has any, to show what the store was asked to do.
   */
  public static Map<String, List<Double>> alternatingThroughput(Path root, List<String> modes, int warmUpSeconds,
      int seconds, ThroughputRun run, String extraClasspath) throws Exception {
    Map<String, List<Double>> results = new LinkedHashMap<>();
    modes.forEach(m -> results.put(m, new ArrayList<>()));
    int rounds = 2;
    for (int round = 1; round <= rounds; round++) {
      for (String mode : modes) {
        System.out.printf("round %d/%d, %s: starting node%n", round, rounds, mode);
        try (NodeProcess node = NodeProcess.start(
                root, run.workDirectory(mode, round), run.arguments(mode, round), extraClasspath);
            ZeebeClient client = ScenarioNodes.client(node)) {
          ScenarioNodes.deploy(client);
          double perSecond =
              Saturation.run(client, Duration.ofSeconds(warmUpSeconds), Duration.ofSeconds(seconds), 128);
          results.get(mode).add(perSecond);
          System.out.printf(java.util.Locale.ROOT, "round %d/%d, %s: %.1f completed instances/s %s%n", round, rounds,
              mode, perSecond, PrometheusText.flushStatistics(node.text("/actuator/prometheus")));
        }
      }
    }
    return results;
  }
}
