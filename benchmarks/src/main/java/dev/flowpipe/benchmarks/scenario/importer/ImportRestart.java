package dev.flowpipe.benchmarks.scenario.importer;

import dev.flowpipe.benchmarks.report.HtmlReport.Band;
import dev.flowpipe.benchmarks.report.HtmlReport.Series;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.benchmarks.report.HtmlReport;
import dev.flowpipe.benchmarks.load.SteadyLoad;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import dev.flowpipe.benchmarks.harness.StandaloneImporter;
import dev.flowpipe.benchmarks.scenario.baseline.Baseline;
import dev.flowpipe.benchmarks.scenario.exporter.ExporterSlowLink;
import io.camunda.zeebe.client.ZeebeClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code benchmarks/run import-restart}: the standalone importer stopped and started again under a steady load. A
 * real node with Camunda's stock exporter 8.6.0 (bulk delay 1 s, not ours) writes raw records into a store the harness
 * starts; {@code bin/flowpipe-importer} (a process of its own, so it can be stopped without the broker) imports them.
 * Once it is caught up and has run steadily, it is stopped (SIGTERM, then SIGKILL as a second case), the load goes on
 * for the downtime, and it is started again: seconds until caught up by its own signal (its first "caught up" line)
 * and by {@link ImportProgress}'s independent check, the records it reads again, and the import lag over the run.
 */
public final class ImportRestart {

  private static final String PREFIX = "zeebe-record";
  private static final String IMPORTED = "imported";

  /** One stop and restart. */
  public record Restart(String signal, int exitStatus, double downtimeSeconds, long recordsReadAgain,
      double secondsUntilCaughtUpOwnSignal, double secondsUntilCaughtUpIndependent, long recordsImportedUntilCaughtUp,
      long maxLagMillisAfterRestart, String loadAverage, double stoppedAtSecond, double restartedAtSecond) {}

  /** The lag chart's points: seconds since sampling started, import lag in ms. */
  public record LagPoint(double second, long lagMillis) {}

  public record Report(String scenario, ImportRestartSettings settings, String independentCheck,
      double secondsUntilFirstCaughtUp, double steadyCaughtUpShare, String steadyLoadAverage, List<Restart> restarts,
      String publishedCamunda85, List<LagPoint> lag) {}

  private ImportRestart() {}

  public static Report run(Path root, ImportRestartSettings settings) throws Exception {
    Path work = ScratchDirectories.create("bench-import-restart");
    try (EmbeddedSearchStore opensearch = EmbeddedSearchStore.start(work.resolve("store"),
            EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(opensearch.url()))) {
      String url = opensearch.url();
      List<String> nodeArgs = new ArrayList<>(Baseline.stockExporterArguments(url, PREFIX));
      nodeArgs.addAll(List.of(Baseline.STOCK_ARGUMENT + "args.bulk.delay=1",
          // job-batch records carry activations (worker, deadline); the importer needs them
          Baseline.STOCK_ARGUMENT + "args.index.jobBatch=true", "--flowpipe.store.url=" + url,
          "--flowpipe.exporter.enabled=false", "--flowpipe.flow-control.enabled=false",
          "--flowpipe.broker.partitions-count=" + settings.partitions()));
      List<String> importerArgs = new ArrayList<>(List.of("--flowpipe.importer.source-url=" + url,
          "--flowpipe.importer.source-prefix=" + PREFIX, "--flowpipe.importer.index-prefix=" + IMPORTED));
      importerArgs.addAll(settings.importerArguments());
      try (NodeProcess node = NodeProcess.start(root, work.resolve("node"), nodeArgs,
              Baseline.stockExporterClasspath(root));
          ZeebeClient client = ScenarioNodes.client(node);
          // started before the load, so that its own start-up (JVM, schema) leaves no backlog to drain first
          StandaloneImporter first = StandaloneImporter.start(root, work.resolve("importer-0.log"), importerArgs);
          SteadyLoad load = SteadyLoad.start(client, settings.loadPerSecond());
          ImportProgress progress = new ImportProgress(store, PREFIX, IMPORTED, settings.partitions())) {
        return withLoad(root, work, settings, first, importerArgs, progress);
      }
    }
  }

  private static Report withLoad(Path root, Path work, ImportRestartSettings settings, StandaloneImporter first,
      List<String> importerArgs, ImportProgress progress) throws Exception {
    StandaloneImporter importer = first;
    List<Restart> restarts = new ArrayList<>();
    double firstCaughtUp;
    double steadyShare;
    String steadyLoad;
    try {
      firstCaughtUp = awaitCaughtUp(importer, progress, 0, settings.catchUpLimit())[0];
      if (firstCaughtUp < 0) {
        throw new IllegalStateException("import-restart: the importer did not catch up from scratch within "
            + settings.catchUpLimit() + " (--catch-up-limit), so there is no restart to measure");
      }
      System.out.printf(Locale.ROOT, "importer caught up %.1f s after its start; steady for %d s%n", firstCaughtUp,
          settings.steady().toSeconds());
      long steadyFrom = progress.millisSinceStart();
      TimeUnit.MILLISECONDS.sleep(settings.steady().toMillis());
      steadyShare = progress.caughtUpShare(steadyFrom, progress.millisSinceStart());
      steadyLoad = ExporterSlowLink.loadAverage();
      for (int i = 0; i < settings.stops().size(); i++) {
        String signal = settings.stops().get(i);
        double stoppedAt = progress.millisSinceStart() / 1000.0;
        int exit = importer.stop(signal.equals("KILL"));
        long readAgain = 0;
        for (int partition = 1; partition <= settings.partitions(); partition++) {
          var cursor = progress.cursor(partition);
          if (cursor.isPresent()) {
            readAgain += progress.recordsToReadAgain(partition, cursor.get());
          }
        }
        System.out.printf("SIG%s: exit %d; down for %d s (load going on)%n", signal, exit,
            settings.downtime().toSeconds());
        TimeUnit.MILLISECONDS.sleep(settings.downtime().toMillis());
        long restartedAt = progress.millisSinceStart();
        importer = StandaloneImporter.start(root, work.resolve("importer-" + (i + 1) + ".log"), importerArgs);
        double[] caughtUp = awaitCaughtUp(importer, progress, restartedAt, settings.catchUpLimit());
        TimeUnit.SECONDS.sleep(10); // the lag after catching up, for the chart
        long maxLag = progress.samples().stream().filter(s -> s.atMillis() >= restartedAt)
            .mapToLong(ImportProgress.Sample::lagMillis).max().orElse(-1);
        Restart restart = new Restart("SIG" + signal, exit, (restartedAt / 1000.0) - stoppedAt, readAgain,
            round(caughtUp[0]), round(caughtUp[1]), importer.recordsWhenCaughtUp(), maxLag,
            ExporterSlowLink.loadAverage(), round(stoppedAt), round(restartedAt / 1000.0));
        System.out.println("restart: " + restart);
        restarts.add(restart);
      }
    } finally {
      importer.close();
    }
    List<LagPoint> lag = progress.samples().stream()
        .map(s -> new LagPoint(s.atMillis() / 1000.0, s.lagMillis())).toList();
    Report report = new Report("import-restart: a real node with Camunda's stock OpenSearch exporter 8.6.0 (bulk delay "
        + "1 s, index.jobBatch on; not ours; " + settings.partitions() + " partitions) under " + settings.loadPerSecond()
        + " instances/s; bin/flowpipe-importer (its own process, defaults" + (settings.importerArguments().isEmpty()
        ? "" : " and " + settings.importerArguments()) + ") stopped, kept down " + settings.downtime().toSeconds()
        + " s under the load, started again", settings, "every 250 ms: per partition the newest searchable raw record "
        + "(position) and the importer's stored cursor; caught up when every partition's cursor covers the newest raw "
        + "record searchable " + ImportProgress.WINDOW_MILLIS + " ms before; lag = now minus the engine time of the "
        + "newest imported record of the partition furthest behind", round(firstCaughtUp), round(steadyShare),
        steadyLoad, restarts, "about 20 minutes to drain after an importer restart at ~150 instances/s "
        + "(Camunda 8.5, stock exporter + Operate importer)", lag);
    html(report, root.resolve("benchmarks/results/import-restart.html"));
    return report;
  }

  /**
   * Waits until the importer has said it is caught up and the independent check holds; returns the seconds from
   * {@code fromMillis} (or the importer's start, for its own signal) to each, -1 for one not reached within the limit.
   * Fails if the importer exits.
   */
  private static double[] awaitCaughtUp(StandaloneImporter importer, ImportProgress progress, long fromMillis,
      Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    ImportProgress.Sample independent = null;
    while (System.nanoTime() < deadline && (importer.secondsUntilCaughtUp() < 0 || independent == null)) {
      if (!importer.isAlive()) {
        throw new IllegalStateException("import-restart: the importer exited before it caught up");
      }
      Thread.sleep(100);
      independent = progress.firstCaughtUpFrom(fromMillis);
    }
    if (importer.secondsUntilCaughtUp() < 0 || independent == null) {
      System.out.println("not caught up within " + limit + " (--catch-up-limit)");
    }
    return new double[] {importer.secondsUntilCaughtUp(),
        independent == null ? -1 : (independent.atMillis() - fromMillis) / 1000.0};
  }

  private static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }

  private static void html(Report report, Path file) throws IOException {
    HtmlReport html = new HtmlReport("Import restart under a steady load");
    html.paragraph(report.scenario() + ". Independent check: " + report.independentCheck() + ". Published: "
        + report.publishedCamunda85() + ".");
    html.paragraph(String.format(Locale.ROOT, "First catch-up from scratch: %.1f s; caught-up share of the steady "
        + "phase before any stop (independent check): %.2f; load average then %s.", report.secondsUntilFirstCaughtUp(),
        report.steadyCaughtUpShare(), report.steadyLoadAverage()));
    List<List<String>> rows = new ArrayList<>();
    List<Band> bands = new ArrayList<>();
    for (Restart r : report.restarts()) {
      rows.add(List.of(r.signal(), String.valueOf(r.exitStatus()), String.valueOf(r.downtimeSeconds()),
          String.valueOf(r.recordsReadAgain()), r.secondsUntilCaughtUpOwnSignal() + " s",
          r.secondsUntilCaughtUpIndependent() + " s", String.valueOf(r.recordsImportedUntilCaughtUp()),
          r.maxLagMillisAfterRestart() + " ms", r.loadAverage()));
      bands.add(new Band("down (" + r.signal() + ")", r.stoppedAtSecond(), r.restartedAtSecond()));
    }
    html.table(List.of("stop", "exit status", "down s", "records read again", "caught up (own signal)",
        "caught up (independent)", "records imported until caught up", "max lag after restart", "load average"), rows);
    double[] x = report.lag().stream().mapToDouble(LagPoint::second).toArray();
    double[] y = report.lag().stream().mapToDouble(p -> Math.max(0, p.lagMillis())).toArray();
    html.chart("Import lag: now minus the newest imported record's engine time", "ms",
        List.of(new Series("import lag", x, y)), bands);
    html.write(file);
    System.out.println("html report: " + file);
  }
}
