package dev.flowpipe.benchmarks.scenario.operations;

import dev.flowpipe.benchmarks.report.Percentiles;
import dev.flowpipe.benchmarks.scenario.operations.OperationsScenario.LoadLatency;
import dev.flowpipe.benchmarks.scenario.operations.OperationsScenario.Report;
import dev.flowpipe.benchmarks.report.HtmlReport;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** The HTML page of {@code benchmarks/run operations}: one table per figure, from the typed report. */
public final class OperationsPage {

  private OperationsPage() {}

  public static void write(Report report, OperationsSettings settings, Path file) throws Exception {
    HtmlReport html = new HtmlReport("Operations: read-your-writes, store requests per refresh, batch throughput");
    html.paragraph(report.scenario() + ". " + report.node() + ". Settings: " + report.settings() + ". Date: "
        + LocalDate.now() + ".");

    html.heading("Store requests per refresh");
    List<List<String>> rows = new ArrayList<>();
    for (RefreshRequests.Count c : report.refreshes()) {
      rows.add(List.of(c.page(), c.refreshSeconds() + " s", String.valueOf(c.apiCalls()),
          String.valueOf(c.storeRequests()), String.valueOf(c.perMinute()), c.byKind().toString()));
    }
    html.table(List.of("page", "refresh interval", "API calls", "store requests per refresh", "per minute",
        "by kind (fewest repetition)"), rows);
    html.paragraph("The node's own store requests in 5 s idle (bulks left out): "
        + report.nodeOwnStoreRequestsIn5sIdle() + ". Each refresh counted 5 times; the fewest is shown.");

    html.heading("Operation answered to effect visible in the UI's next read (ms)");
    rows = new ArrayList<>();
    for (OperationVisibility.KindResult k : report.visibility()) {
      rows.add(List.of(k.operation(), k.read(), cell(k.withPositionsMillis()), cell(k.pollingMillis()),
          String.valueOf(k.readsWithPositionsTimedOut()), String.valueOf(k.readsWithPositionsReachedWithoutEffect()),
          String.valueOf(k.answersWithoutPosition()),
          k.readsPerOperationWithPositions() + " / " + k.readsPerOperationPolling(),
          String.valueOf(k.refusedBusy())));
    }
    html.table(List.of("operation", "read", "with consistency.positions", "polling every "
        + settings.pollInterval().toMillis() + " ms", "reads with positions timed out (2 s)",
        "reads with positions caught up without the effect", "answers without position",
        "reads per operation (with / without)", "refused 503 (sent again)"), rows);

    html.paragraph(settings.users() + " users operating at once, each one operation after another; the kinds in turn,"
        + " the two ways alternating. Time from the operation's answer to the answer of the first read showing its"
        + " effect.");
    html.heading("Batch cancellation and batch modification under " + settings.backgroundRate()
        + " instances/s of background load");
    html.table(List.of("batch", "instances", "completed", "failed", "batch s", "batch instances/s", "engine s",
            "engine instances/s", "done in the read model"),
        report.batches().stream().map(b -> List.of(b.kind().name(), String.valueOf(b.instances()),
            String.valueOf(b.completed()), String.valueOf(b.failed()), String.valueOf(b.batchSeconds()),
            String.valueOf(b.batchPerSecond()), String.valueOf(b.engineSeconds()), String.valueOf(b.enginePerSecond()),
            String.valueOf(b.terminated()))).toList());
    rows = new ArrayList<>();
    for (LoadLatency l : report.backgroundLoad()) {
      rows.add(List.of(l.phase(), String.valueOf(l.seconds()),
          l.executionLatencyMillis() == null ? "-" : cell(l.executionLatencyMillis()),
          String.valueOf(l.perSecondP99Median()), String.valueOf(l.perSecondP99Max()),
          String.valueOf(Math.round(l.completedPerSecond() * 10) / 10.0)));
    }
    html.table(List.of("background load", "seconds", "latency over the phase (ms)", "per-second p99, median (ms)",
        "per-second p99, max (ms)", "completed/s"), rows);

    html.heading("Load average");
    html.table(List.of("moment", "/proc/loadavg"), report.loadAverages().stream()
        .map(a -> List.of(a.moment(), a.loadAverage())).toList());
    html.write(file);
    System.out.println("html report: " + file);
  }

  private static String cell(Percentiles percentiles) {
    return "p50 " + percentiles.p50() + ", p99 " + percentiles.p99() + ", max " + percentiles.max()
        + " (n " + percentiles.count() + ")";
  }
}
