package dev.flowpipe.benchmarks.scenario.store;

import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.benchmarks.report.Figures;
import dev.flowpipe.benchmarks.scenario.overhead.InterleavedOverhead;
import dev.flowpipe.benchmarks.scenario.overhead.CpuCost;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * What an index setting does to the store's cost under the exporter's write pattern: two shared read-model indices
 * in one embedded OpenSearch, one with the schema's settings and one with {@code settings} applied on top, take the
 * same paced bulks (each asked to refresh) in alternating phases, so drift and JIT warm-up fall on both alike. The
 * store's CPU and the bulk times are measured per phase.
 */
public final class StoreSettingsAB {

  private StoreSettingsAB() {}

  /** {@code a.b=1,c.d=x} as an ordered map; a pair without '=' or with an empty side is refused, naming it. */
  public static Map<String, String> parseSettings(String text) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String raw : text.split(",")) {
      String pair = raw.trim();
      int eq = pair.indexOf('=');
      if (eq <= 0 || eq == pair.length() - 1) {
        throw new IllegalArgumentException("store-settings: expected index.setting=value, got '" + pair + "'");
      }
      if (!pair.startsWith("index.")) {
        throw new IllegalArgumentException("store-settings: only index settings (index.*) can vary, got '" + pair
            + "'");
      }
      settings.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return settings;
  }

  public static Report run(Path root, Map<String, String> settings, int instancesPerBulk, double bulksPerSecond,
      int phaseSeconds, int rounds) throws Exception {
    if (instancesPerBulk < 1 || bulksPerSecond <= 0 || phaseSeconds < 1 || rounds < 1) {
      throw new IllegalArgumentException("store-settings: instances per bulk, bulks/s, phase seconds and rounds must "
          + "be positive, were " + instancesPerBulk + ", " + bulksPerSecond + ", " + phaseSeconds + ", " + rounds);
    }
    try (EmbeddedSearchStore node =
            EmbeddedSearchStore.start(ScratchDirectories.create("bench-store"), EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.url()))) {
      ProcessHandle process = ProcessHandle.of(node.pid()).orElseThrow();
      LongSupplier cpu = () -> CpuCost.cpuNanos(process);
      Map<String, Map<ReadModelIndex, String>> names = new LinkedHashMap<>();
      names.put("default", RefreshLayout.prepare(store, "settings-default", RefreshLayout.Layout.SHARED, "1s"));
      names.put("variant", RefreshLayout.prepare(store, "settings-variant", RefreshLayout.Layout.SHARED, "1s"));
      // both indices are closed and opened again (the default one with no change), so that step cannot favour one
      apply(node.url(), "settings-default-read-model-v2", Map.of());
      apply(node.url(), "settings-variant-read-model-v2", settings);
      long[] keys = {0};
      long[] position = {0};
      for (String variant : names.keySet()) {
        System.out.println("warm-up: " + variant + " for 20 s");
        RefreshLayout.phase(store, names.get(variant), RefreshLayout.Layout.SHARED, 0, instancesPerBulk,
            bulksPerSecond, Duration.ofSeconds(20), cpu, keys, position);
      }
      List<Section> phases = new ArrayList<>();
      Map<String, List<RefreshLayout.Phase>> byVariant = new LinkedHashMap<>();
      for (int round = 1; round <= rounds; round++) {
        // the order flips each round, so neither variant always follows the other
        List<String> order = round % 2 == 1 ? List.of("default", "variant") : List.of("variant", "default");
        for (String variant : order) {
          var phase = RefreshLayout.phase(store, names.get(variant), RefreshLayout.Layout.SHARED, round,
              instancesPerBulk, bulksPerSecond, Duration.ofSeconds(phaseSeconds), cpu, keys, position);
          System.out.printf("round %d, %-7s: %d bulks, %d documents, store %.3f cores, bulk mean %.1f ms, p99 %.1f"
                  + " ms%n", round, variant, phase.bulks(), phase.documents(), phase.storeCores(),
              phase.meanBulkMillis(), phase.p99BulkMillis());
          byVariant.computeIfAbsent(variant, v -> new ArrayList<>()).add(phase);
          phases.add(new Section().text("variant", variant).typed("phase", phase));
        }
      }
      Section means = new Section();
      byVariant.forEach((variant, mine) -> means.section(variant)
          .figure("storeCores", Figures.round3(mean(mine, RefreshLayout.Phase::storeCores)))
          .figure("meanBulkMillis", Figures.round3(mean(mine, RefreshLayout.Phase::meanBulkMillis)))
          .figure("p99BulkMillis", Figures.round3(mean(mine, RefreshLayout.Phase::p99BulkMillis))));
      double ratio = mean(byVariant.get("variant"), RefreshLayout.Phase::storeCores)
          / mean(byVariant.get("default"), RefreshLayout.Phase::storeCores);
      List<Double> perRound = perRoundRatios(byVariant.get("default"), byVariant.get("variant"));
      double median = InterleavedOverhead.median(perRound.stream().sorted().toList());
      System.out.printf("store CPU, variant / default: %.2f of the means, %.2f median of the rounds' ratios %s"
          + " (variant: %s)%n", ratio, median, perRound.stream().map(r -> String.format("%.2f", r)).toList(), settings);
      Report report = Report.describing("index settings under the exporter's write pattern: bulks of " + instancesPerBulk
          + " one-task instances (7 documents each) at " + bulksPerSecond + " bulks/s, refresh=true on each, into a "
          + "shared read-model index with the schema's settings (default) or with " + settings + " (variant), "
          + "alternating in one embedded OpenSearch (1 GB heap, index refresh interval 1s)");
      report.body().typed("settings", settings).figure("phaseSeconds", phaseSeconds).sections("phases", phases)
          .section("means", means)
          .figure("storeCpuVariantOverDefault", Figures.round3(ratio))
          .figures("storeCpuVariantOverDefaultPerRound", perRound.stream().map(Figures::round3).toList(), Unit.NONE)
          .figure("storeCpuVariantOverDefaultMedian", Figures.round3(median));
      return report;
    }
  }

  /** Each round's variant / default store CPU: a round's two phases are a minute apart at most. */
  public static List<Double> perRoundRatios(List<RefreshLayout.Phase> defaults, List<RefreshLayout.Phase> variants) {
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < Math.min(defaults.size(), variants.size()); i++) {
      ratios.add(variants.get(i).storeCores() / defaults.get(i).storeCores());
    }
    return ratios;
  }

  private static double mean(List<RefreshLayout.Phase> phases, ToDoubleFunction<RefreshLayout.Phase> value) {
    return phases.stream().mapToDouble(value).average().orElseThrow();
  }

  /** Applies the settings to a closed index (so static ones apply too) and opens it again; none: closes and opens. */
  public static void apply(String storeUrl, String index, Map<String, String> settings) throws Exception {
    StringBuilder body = new StringBuilder("{");
    settings.forEach((key, value) -> body.append(body.length() > 1 ? "," : "").append('"').append(key)
        .append("\":\"").append(value).append('"'));
    body.append('}');
    HttpClient http = HttpClient.newHttpClient();
    send(http, HttpRequest.newBuilder(URI.create(storeUrl + "/" + index + "/_close")).POST(
        HttpRequest.BodyPublishers.noBody()));
    try {
      if (settings.isEmpty()) {
        return;
      }
      send(http, HttpRequest.newBuilder(URI.create(storeUrl + "/" + index + "/_settings"))
          .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body.toString())));
    } finally { // a refused setting must not leave the index closed
      send(http, HttpRequest.newBuilder(URI.create(storeUrl + "/" + index + "/_open?wait_for_active_shards=1")).POST(
          HttpRequest.BodyPublishers.noBody()));
    }
  }

  private static void send(HttpClient http, HttpRequest.Builder request) throws Exception {
    HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IllegalStateException("store-settings: " + response.request().method() + " " + response.request().uri()
          + " answered " + response.statusCode() + ": " + response.body());
    }
  }

}
