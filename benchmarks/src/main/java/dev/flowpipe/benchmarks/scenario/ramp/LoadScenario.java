package dev.flowpipe.benchmarks.scenario.ramp;

import dev.flowpipe.benchmarks.cli.ScenarioArguments;
import dev.flowpipe.benchmarks.report.ReportWriter;
import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.HtmlReport.Band;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.benchmarks.report.Figures;
import dev.flowpipe.benchmarks.report.HtmlReport;
import dev.flowpipe.benchmarks.report.LoadCharts;
import dev.flowpipe.benchmarks.prometheus.ExporterLag;
import dev.flowpipe.benchmarks.load.LoadSettings;
import dev.flowpipe.benchmarks.load.LoadModel;
import dev.flowpipe.benchmarks.load.LoadGenerator;
import dev.flowpipe.benchmarks.load.LoadWindow;
import dev.flowpipe.benchmarks.load.LoadResult;
import dev.flowpipe.benchmarks.load.Availability;
import dev.flowpipe.benchmarks.load.AvailabilityProbe;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.Locale;
import java.util.Map;

/**
 * {@code benchmarks/run load [rate] [seconds] [options]}: the load generator at a fixed rate against a fresh node the
 * harness starts (node defaults, plus any {@code --node-arg=...}) or an external one ({@code --gateway=host:port}, and
 * {@code --http=url} for its exporter lag); {@code --warm-up=10s} first runs the same load unreported. Beside the
 * load, an {@link AvailabilityProbe} measures data availability (store and web app API on a harness node, the API
 * only on an external one; {@code --availability=off} for none). Writes {@code results/load.json} and
 * {@code results/load.html}.
 */
public final class LoadScenario {

  private LoadScenario() {}

  /** Its own arguments; the positional {@code [rate] [seconds]} and the load's options are {@link LoadSettings#NAMES}. */
  static final List<String> OWN = List.of("availability", "node-arg", "warm-up");

  public static Report run(Path root, List<String> args) throws Exception {
    ScenarioArguments arguments = ScenarioArguments.positional("load", args, List.of("rate", "seconds"), null);
    boolean availability = arguments.onOff("availability", true);
    List<String> nodeArgs = arguments.texts("node-arg");
    Duration warmUp = arguments.duration("warm-up", Duration.ZERO);
    LoadSettings settings = LoadSettings.from(arguments);
    arguments.requireAllKnown(Stream.concat(OWN.stream(), LoadSettings.NAMES.stream()).toList());
    if (settings.gateway() != null && !nodeArgs.isEmpty()) {
      throw new IllegalArgumentException("--node-arg is for a node the harness starts, not an external one, was "
          + nodeArgs);
    }
    LoadModel model = LoadModel.of(settings);
    LoadResult result;
    String target;
    AvailabilityProbe probe;
    if (settings.gateway() == null) {
      System.out.println("starting a fresh node" + (nodeArgs.isEmpty() ? "" : " with " + nodeArgs));
      try (NodeProcess node = NodeProcess.start(root, ScratchDirectories.create("bench-load"), nodeArgs);
          ZeebeClient client = ScenarioNodes.client(node);
          SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.storeUrl()))) {
        target = "fresh node started by the harness (own JVM, embedded OpenSearch)"
            + (nodeArgs.isEmpty() ? ", defaults" : ", " + String.join(" ", nodeArgs));
        URI http = URI.create("http://127.0.0.1:" + node.httpPort());
        probe = availability ? new AvailabilityProbe(client, store, "flowpipe", http) : null;
        result = run(client, settings.withNodeHttp(http), model, warmUp, probe);
      }
    } else {
      target = "external node, gateway " + settings.gateway().getAuthority()
          + (settings.nodeHttp() == null ? ", no HTTP address (no exporter lag)" : ", HTTP " + settings.nodeHttp());
      try (ZeebeClient client = ZeebeClient.newClientBuilder().grpcAddress(settings.gateway()).usePlaintext()
          .defaultRequestTimeout(Duration.ofSeconds(30)).build()) {
        // an external node: its web app's API only (the store may not be reachable from here)
        probe = availability && settings.nodeHttp() != null
            ? new AvailabilityProbe(client, null, "flowpipe", settings.nodeHttp()) : null;
        result = run(client, settings, model, warmUp, probe);
      }
    }
    Report report = Report.describing("load generator at a fixed rate: instances created with a result by the official Zeebe "
        + "client, jobs completed by its workers; per-second windows");
    report.body().text("target", target).section("settings", describe(settings, model))
        .figure("warmUpSecondsNotReported", warmUp.toMillis() / 1000.0, Unit.SECONDS)
        .text("latencyDefinition", "process execution latency: client time from sending the create command to the "
        + "gateway's answer that the instance completed (create with result)");
    report.body().section("summary", result.summary());
    if (probe != null) {
      Section availabilityReport = report.body().section("dataAvailability");
      availabilityReport.text("definition", "probe instances (start to end, created with a result) one after another "
          + "(100 ms apart) beside the load: from the engine's end date to COMPLETED in a search of the store and in an "
          + "answer of the web app's search API, each polled every 10 ms");
      if (probe.storeLatency().getTotalCount() == 0) {
        availabilityReport.put("storeSearchMillis", new Section.Empty());
      } else {
        availabilityReport.section("storeSearchMillis", Figures.percentiles(probe.storeLatency()));
      }
      availabilityReport.section("webappApiMillis", Figures.percentiles(probe.apiLatency()));
    }
    report.body().sections("windows", result.windows().stream().map(LoadWindow::toSection).toList());
    html(ReportWriter.tree(report), result, root.resolve("benchmarks/results/load.html"));
    return report;
  }

  /**
   * Deploys the model and runs the load (after a warm-up at the same rate, not reported, if one is given), with the
   * availability probe beside it during the load if one is given.
   */
  public static LoadResult run(ZeebeClient client, LoadSettings settings, LoadModel model, Duration warmUp,
      AvailabilityProbe probe) throws InterruptedException {
    model.deploy(client);
    if (probe != null) {
      client.newDeployResourceCommand().addProcessModel(
          Bpmn.createExecutableProcess(Availability.PROBE).startEvent().endEvent().done(), "probe.bpmn").send().join();
    }
    if (!warmUp.isZero()) {
      System.out.printf(Locale.ROOT, "warm-up: %.1f PI/s for %d s (not reported)%n", settings.ratePerSecond(),
          warmUp.toSeconds());
      LoadResult warm = new LoadGenerator(client, settings.withDuration(warmUp), model,
          settings.nodeHttp() == null ? null : new ExporterLag.Reader(settings.nodeHttp()), System.out::println, 5)
          .run();
      System.out.println("warm-up: " + warm.summary());
    }
    System.out.printf(Locale.ROOT, "load: %.1f PI/s for %d s, process %s, job types %s, payload %d bytes, "
            + "worker delay %d ms%n", settings.ratePerSecond(), settings.duration().toSeconds(), model.processId(),
        model.jobTypes(), settings.payloadBytes(), settings.workerDelay().toMillis());
    LoadGenerator generator = new LoadGenerator(client, settings, model,
        settings.nodeHttp() == null ? null : new ExporterLag.Reader(settings.nodeHttp()), System.out::println, 5);
    LoadResult result;
    if (probe == null) {
      result = generator.run();
    } else {
      try (AvailabilityProbe running = probe.start(Duration.ofMillis(100))) {
        result = generator.run();
      }
    }
    System.out.println("load: " + result.summary());
    if (probe != null) {
      System.out.println("data availability: store " + Figures.percentiles(probe.storeLatency()) + ", web app API "
          + Figures.percentiles(probe.apiLatency()));
    }
    return result;
  }

  public static Section describe(LoadSettings settings, LoadModel model) {
    return new Section().figure("ratePerSecond", settings.ratePerSecond())
        .figure("seconds", settings.duration().toMillis() / 1000.0)
        .figure("payloadBytes", settings.payloadBytes())
        .text("model", settings.model() == null ? "built-in: start, one service task, end" : settings.model().toString())
        .text("processId", model.processId())
        .typed("jobTypes", model.jobTypes())
        .figure("workerDelayMillis", settings.workerDelay().toMillis())
        .figure("maxInFlight", settings.maxInFlight());
  }

  @SuppressWarnings("unchecked")
  private static void html(Map<String, Object> report, LoadResult result, Path file) throws Exception {
    Map<String, Object> s = (Map<String, Object>) report.get("summary");
    Map<String, Object> latency = (Map<String, Object>) s.get("executionLatencyMillis");
    Map<String, Object> lag = (Map<String, Object>) s.get("exporterLag");
    HtmlReport html = new HtmlReport("Load: " + result.settings().ratePerSecond() + " PI/s for "
        + result.loadSeconds() + " s");
    html.paragraph(report.get("scenario") + ". Target: " + report.get("target") + ". Settings: "
        + report.get("settings") + ". Latency: " + report.get("latencyDefinition") + ". Date: " + java.time.LocalDate.now()
        + ".");
    html.table(List.of("offered/s", "created/s", "completed/s", "rejected share", "held back", "timed out",
            "latency p50", "p90", "p99", "max", "lag mean", "lag max", "lag max records"),
        List.of(List.of(String.valueOf(s.get("offeredPerSecond")), String.valueOf(s.get("createdPerSecond")),
            String.valueOf(s.get("completedPerSecond")), percent(result.rejectedShare()),
            String.valueOf(s.get("heldBackAtInFlightLimit")), String.valueOf(s.get("createTimedOut")),
            latency.get("p50") + " ms", latency.get("p90") + " ms", latency.get("p99") + " ms",
            latency.get("max") + " ms", lag.get("meanAgeMillis") + " ms", lag.get("maxAgeMillis") + " ms",
            String.valueOf(lag.get("maxRecords")))));
    html.paragraph("Totals: " + s);
    if (report.get("dataAvailability") instanceof Map<?, ?> availability) {
      html.paragraph("Data availability (" + availability.get("definition") + "), ms: store "
          + availability.get("storeSearchMillis") + "; web app API " + availability.get("webappApiMillis") + ".");
    }
    List<Band> bands = new ArrayList<>(List.of(new Band("load", 0, result.loadSeconds())));
    if (result.windows().size() > result.loadSeconds()) {
      bands.add(new Band("drain", result.loadSeconds(), result.windows().size()));
    }
    LoadCharts.add(html, LoadCharts.points(result, 0), bands);
    html.write(file);
    System.out.println("html report: " + file);
  }

  public static String percent(double share) {
    return String.format(Locale.ROOT, "%.2f%%", 100 * share);
  }
}
