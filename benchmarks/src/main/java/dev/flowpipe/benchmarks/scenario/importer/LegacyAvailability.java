package dev.flowpipe.benchmarks.scenario.importer;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.benchmarks.report.HtmlReport;
import dev.flowpipe.benchmarks.report.MillisPercentiles;
import dev.flowpipe.benchmarks.load.SteadyLoad;
import dev.flowpipe.benchmarks.load.Availability;
import dev.flowpipe.benchmarks.load.PendingProbes;
import dev.flowpipe.benchmarks.load.ProbePlaces;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import dev.flowpipe.benchmarks.scenario.baseline.Baseline;
import dev.flowpipe.benchmarks.scenario.exporter.ExporterSlowLink;
import io.camunda.zeebe.client.ZeebeClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code benchmarks/run legacy-availability}: data availability through the legacy path beside our exporter, on one
 * node per stock bulk delay (a fresh node each, one store for the run). The node runs Camunda's stock OpenSearch
 * exporter 8.6.0 at that delay, our exporter under one prefix, and the importer inside the node (the migration setup
 * the node documents and LegacyPathEquivalenceTest checks; one process fewer on a small machine) reading the stock
 * records into a read model under another prefix. Under a steady load, probe instances are watched by one poller
 * ({@link PendingProbes}) in (a) our read model, (b) the stock raw records and (c) the imported read model; the
 * importer's own share is (c) - (b) per probe.
 */
public final class LegacyAvailability {

  public static final String OURS = "ours";
  public static final String STOCK_RAW = "stock raw records";
  public static final String IMPORTED = "imported";
  /** Camunda 8.5's published import latency (stock exporter + Operate importer) by stock bulk delay (DESIGN.md). */
  public static final Map<Integer, Double> PUBLISHED_SECONDS = Map.of(1, 3.68, 5, 5.69);

  /** One phase: a fresh node with the stock exporter at one bulk delay. */
  public record Phase(int stockBulkDelaySeconds, int probes, MillisPercentiles ours, MillisPercentiles stockRawRecords,
      MillisPercentiles imported, MillisPercentiles importerShare, Map<String, Long> notSeen,
      Double publishedCamunda85Seconds, String loadAverageBefore, String loadAverageAfter) {}

  public record Report(String scenario, LegacyAvailabilitySettings settings, String definition, List<Phase> phases) {}

  private LegacyAvailability() {}

  public static Report run(Path root, LegacyAvailabilitySettings settings) throws Exception {
    Path work = ScratchDirectories.create("bench-legacy-availability");
    List<Phase> phases = new ArrayList<>();
    try (EmbeddedSearchStore opensearch = EmbeddedSearchStore.start(work.resolve("store"),
            EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(opensearch.url()))) {
      for (int delay : settings.stockDelaysSeconds()) {
        phases.add(phase(root, work.resolve("delay-" + delay + "s"), opensearch.url(), store, settings, delay));
      }
    }
    Report report = new Report("legacy-availability: one node per stock bulk delay running Camunda's stock "
        + "OpenSearch exporter 8.6.0 (index.jobBatch on), our exporter (node defaults) and our importer inside the node "
        + "(flowpipe.importer.enabled, defaults" + (settings.importerArguments().isEmpty() ? ""
        : " and " + settings.importerArguments()) + "), all on one embedded OpenSearch started by the harness; "
        + settings.loadPerSecond() + " instances/s of the one-task process as load",
        settings, "per probe instance (start to end, created with a result): ms from the engine's completion "
        + "(ELEMENT_COMPLETED timestamp = end date) to COMPLETED searchable in our read model, to the raw record "
        + "searchable in the stock indices, and to COMPLETED searchable in the imported read model; one poller asks "
        + "each place for all pending probes every 10 ms; importer share = imported - stock raw, per probe",
        phases);
    html(report, root.resolve("benchmarks/results/legacy-availability.html"));
    return report;
  }

  private static Phase phase(Path root, Path dir, String url, SearchStore store, LegacyAvailabilitySettings settings,
      int delay) throws Exception {
    String tag = "d" + delay + "s";
    String stockPrefix = "zeebe-record-" + tag;
    String oursPrefix = "fp-" + tag;
    String importedPrefix = "imported-" + tag;
    List<String> args = new ArrayList<>(Baseline.stockExporterArguments(url, stockPrefix));
    args.addAll(List.of(Baseline.STOCK_ARGUMENT + "args.bulk.delay=" + delay,
        // job-batch records carry activations (worker, deadline); the importer needs them, the stock default omits them
        Baseline.STOCK_ARGUMENT + "args.index.jobBatch=true",
        "--flowpipe.store.url=" + url, "--flowpipe.exporter.index-prefix=" + oursPrefix,
        "--flowpipe.importer.enabled=true", "--flowpipe.importer.source-prefix=" + stockPrefix,
        "--flowpipe.importer.index-prefix=" + importedPrefix));
    args.addAll(settings.importerArguments());
    System.out.printf("phase: stock bulk delay %d s (node in %s)%n", delay, dir);
    try (NodeProcess node = NodeProcess.start(root, dir, args, Baseline.stockExporterClasspath(root));
        ZeebeClient client = ScenarioNodes.client(node);
        SteadyLoad load = SteadyLoad.start(client, settings.loadPerSecond())) {
      TimeUnit.MILLISECONDS.sleep(settings.warmUp().toMillis());
      String before = ExporterSlowLink.loadAverage();
      List<PendingProbes.Probe> probes = probe(client, settings, List.of(
          ProbePlaces.readModel(OURS, store, oursPrefix), ProbePlaces.rawRecords(STOCK_RAW, store, stockPrefix),
          ProbePlaces.readModel(IMPORTED, store, importedPrefix)));
      Phase phase = summarise(delay, probes, before, ExporterSlowLink.loadAverage());
      System.out.println("phase: " + phase);
      return phase;
    }
  }

  /** Starts probes at the settings' rate for the probe time; returns each once seen everywhere or past its deadline. */
  private static List<PendingProbes.Probe> probe(ZeebeClient client, LegacyAvailabilitySettings settings,
      List<PendingProbes.Place> places) throws InterruptedException {
    PendingProbes pending = new PendingProbes(places, TimeUnit.SECONDS.toMillis(60));
    try {
      long start = System.nanoTime();
      long intervalNanos = Math.round(1e9 / settings.probesPerSecond());
      int failed = 0;
      for (long n = 0; System.nanoTime() - start < settings.probeTime().toNanos(); n++) {
        try {
          pending.add(Availability.createProbe(client));
        } catch (RuntimeException e) {
          // a probe the engine did not complete (e.g. a timed-out create) has no completion to measure from
          if (failed++ == 0) {
            System.out.println("a probe was not created: " + e);
          }
        }
        long due = start + (n + 1) * intervalNanos;
        TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
      }
      if (failed > 0) {
        System.out.println(failed + " probes not created");
      }
    } finally {
      pending.close();
    }
    return pending.finished();
  }

  public static Phase summarise(int delay, List<PendingProbes.Probe> probes, String loadBefore, String loadAfter) {
    List<Long> shares = new ArrayList<>();
    for (PendingProbes.Probe probe : probes) {
      long raw = probe.millis().get(STOCK_RAW);
      long imported = probe.millis().get(IMPORTED);
      if (raw >= 0 && imported >= 0) {
        shares.add(imported - raw);
      }
    }
    Map<String, Long> notSeen = new java.util.LinkedHashMap<>();
    for (String place : List.of(OURS, STOCK_RAW, IMPORTED)) {
      notSeen.put(place, probes.stream().filter(p -> p.millis().get(place) < 0).count());
    }
    return new Phase(delay, probes.size(), seen(probes, OURS), seen(probes, STOCK_RAW), seen(probes, IMPORTED),
        MillisPercentiles.of(shares), notSeen, PUBLISHED_SECONDS.get(delay), loadBefore, loadAfter);
  }

  private static MillisPercentiles seen(List<PendingProbes.Probe> probes, String place) {
    return MillisPercentiles.of(probes.stream().map(p -> p.millis().get(place)).filter(m -> m >= 0).toList());
  }

  private static void html(Report report, Path file) throws IOException {
    HtmlReport html = new HtmlReport("Data availability through the legacy path, beside our exporter");
    html.paragraph(report.scenario() + ". " + report.definition() + ".");
    List<List<String>> rows = new ArrayList<>();
    for (Phase p : report.phases()) {
      rows.add(List.of(p.stockBulkDelaySeconds() + " s", String.valueOf(p.probes()), p.ours().summary(),
          p.stockRawRecords().summary(), p.imported().summary(), p.importerShare().summary(),
          p.publishedCamunda85Seconds() == null ? "-"
              : String.format(Locale.ROOT, "%.2f s", p.publishedCamunda85Seconds()),
          p.notSeen().toString(), p.loadAverageBefore() + " -> " + p.loadAverageAfter()));
    }
    html.table(List.of("stock bulk delay", "probes", "(a) ours p50/p95/p99", "(b) stock raw records",
        "(c) imported", "importer share (c - b)", "Camunda 8.5 published", "not seen in 60 s", "load average"), rows);
    html.write(file);
    System.out.println("html report: " + file);
  }
}
