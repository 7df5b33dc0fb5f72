package dev.flowpipe.benchmarks.scenario.flowcontrol;

import dev.flowpipe.benchmarks.report.ReportWriter;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.HtmlReport.Band;
import dev.flowpipe.benchmarks.report.HtmlReport.Series;
import dev.flowpipe.testsupport.DegradedStoreExperiment.Sample;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.testsupport.DegradedStoreExperiment;
import dev.flowpipe.testsupport.StoreProxy;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.benchmarks.report.HtmlReport;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Flow control under a degraded store, as the flow-control issue describes it, on a node started as a user starts
 * it, its controller on from the start: a steady load on a healthy store; the store slowed (a proxy passing bulks at a
 * fixed number of operations per second) below what the load needs, with the controller switched off; a static limit
 * at half the degraded export rate; the lag controller on again (target 2 s); the store recovered. Reports the time
 * the controller took to engage and to let go. Writes the JSON report and an HTML page with the time series.
 */
public final class FlowControlScenario {

  private static final long TARGET_MILLIS = 2_000;

  private FlowControlScenario() {}

  public static Report run(Path root, int perSecond, double degradedOperationsPerSecond) throws Exception {
    Path work = ScratchDirectories.create("bench-flow-control");
    try (EmbeddedSearchStore opensearch = EmbeddedSearchStore.start(work.resolve("store"),
            EmbeddedStores.settings(root));
        StoreProxy proxy = new StoreProxy(opensearch.url(), null, null);
        NodeProcess node = NodeProcess.start(root, work.resolve("node"), List.of(
            "--flowpipe.store.url=" + proxy.url(),
            // the scenario changes flow control through POST /actuator/flowControl: an actuator write
            "--flowpipe.webapp.security.actuator-writes-enabled=true",
            "--flowpipe.exporter.bulk.size=50",
            "--flowpipe.flow-control.max-export-lag=" + TARGET_MILLIS + "ms"));
        ZeebeClient client = ZeebeClient.newClientBuilder().grpcAddress(node.gateway()).usePlaintext()
            .defaultRequestTimeout(Duration.ofSeconds(20)).build();
        DegradedStoreExperiment experiment = new DegradedStoreExperiment(client, node.httpPort(), "steady");
        SearchStore direct = SearchStoreConnector.connect(StoreConnection.of(opensearch.url()))) {
      client.newDeployResourceCommand()
          .addProcessModel(Bpmn.createExecutableProcess("steady").startEvent().endEvent().done(), "steady.bpmn")
          .send().join();
      experiment.start(perSecond);
      phase(experiment, "healthy", Duration.ofSeconds(15));

      experiment.configure("{\"enabled\": false}");
      proxy.throttleBulksTo(degradedOperationsPerSecond);
      phase(experiment, "degraded no control", Duration.ofSeconds(20));
      List<Sample> uncontrolled = experiment.samples("degraded no control");
      double degradedExport = mean(uncontrolled.subList(uncontrolled.size() / 2, uncontrolled.size()),
          Sample::exportRate);

      int staticLimit = (int) Math.max(100, degradedExport * 0.5);
      experiment.configure("{\"writeLimit\": " + staticLimit + "}");
      experiment.phase("static limit");
      long backlog = experiment.report().path("partitions").path(0).path("lagRecords").asLong();
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (experiment.report().path("partitions").path(0).path("lagRecords").asLong() > backlog / 10
          && System.nanoTime() < deadline) {
        Thread.sleep(500);
      }
      progress(experiment, "static limit");

      experiment.configure("{\"writeLimit\": 0, \"enabled\": true}");
      phase(experiment, "controller settling", Duration.ofSeconds(15));
      phase(experiment, "controller settled", Duration.ofSeconds(30));

      proxy.throttleBulksTo(0);
      phase(experiment, "recovered", Duration.ofSeconds(20));
      experiment.stopLoad();

      String index = ReadModelIndex.PROCESS_INSTANCE.indexName("flowpipe");
      long accepted = experiment.acceptedKeys().size();
      long found = 0;
      long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (System.nanoTime() < until) {
        direct.refresh(index);
        found = direct.count(index);
        if (found >= accepted) {
          break;
        }
        Thread.sleep(500);
      }
      Report report = report(experiment, perSecond, degradedOperationsPerSecond, staticLimit, accepted,
          found);
      html(experiment, ReportWriter.tree(report), root.resolve("benchmarks/results/flow-control.html"));
      return report;
    }
  }

  private static void phase(DegradedStoreExperiment experiment, String name, Duration length) throws Exception {
    experiment.phase(name);
    experiment.run(length);
    progress(experiment, name);
  }

  private static void progress(DegradedStoreExperiment experiment, String name) {
    List<Sample> samples = experiment.samples(name);
    if (!samples.isEmpty()) {
      Sample last = samples.getLast();
      System.out.printf(Locale.ROOT, "%6.1f s  %-20s lag %5d ms %6d records, write %.0f/s, export %.0f/s, limit %s%n",
          last.seconds(), name, last.lagMillis(), last.lagRecords(), last.writeRate(), last.exportRate(),
          last.writeLimit() == null ? "none" : last.writeLimit());
    }
  }

  /** One phase of the run, its samples' means and where it ended. */
  public record PhaseSummary(double seconds, double acceptedPerSecond, double rejectedPerSecond, double writeRate,
      double exportRate, double meanLagMillis, long endLagMillis, long endLagRecords) {}

  private static Report report(DegradedStoreExperiment experiment, int perSecond, double degraded,
      int staticLimit, long accepted, long found) {
    Report report = Report.describing("flow control under a degraded store (one node, embedded OpenSearch behind a proxy "
        + "that passes bulks at a fixed rate; start-to-end process)");
    Section body = report.body().text("load", perSecond + " instances/s offered")
        .text("degradedStore", degraded + " bulk operations/s")
        .text("staticLimit", staticLimit + " records/s")
        .figure("targetLagMillis", TARGET_MILLIS);
    Map<String, PhaseSummary> phases = new LinkedHashMap<>();
    for (String phase : phaseNames(experiment)) {
      List<Sample> samples = experiment.samples(phase);
      phases.put(phase, new PhaseSummary(round(samples.getLast().seconds() - samples.getFirst().seconds()),
          round(mean(samples, Sample::acceptedPerSecond)), round(mean(samples, Sample::rejectedPerSecond)),
          round(mean(samples, Sample::writeRate)), round(mean(samples, Sample::exportRate)),
          round(mean(samples, s -> s.lagMillis())), samples.getLast().lagMillis(), samples.getLast().lagRecords()));
    }
    body.typed("phases", phases)
        .figure("healthyPhaseSamplesWithALimit",
            experiment.samples("healthy").stream().filter(x -> x.writeLimit() != null).count())
        .figure("secondsToEngage", firstSecondsWhere(experiment, "controller settling", x -> x.writeLimit() != null))
        .figure("secondsToRelease", firstSecondsWhere(experiment, "recovered", x -> x.writeLimit() == null))
        .figure("acceptedInstances", accepted)
        .figure("instancesInReadModel", found)
        .figure("notSentAtClientLimit", experiment.notSent())
        .typed("otherErrors", experiment.errorKinds());
    return report;
  }

  /** Seconds from the phase's first sample to the first one that satisfies {@code condition}; null if none. */
  private static Double firstSecondsWhere(DegradedStoreExperiment experiment, String phase,
      java.util.function.Predicate<Sample> condition) {
    List<Sample> samples = experiment.samples(phase);
    return samples.stream().filter(condition).findFirst()
        .map(x -> round(x.seconds() - samples.getFirst().seconds())).orElse(null);
  }

  private static List<String> phaseNames(DegradedStoreExperiment experiment) {
    List<String> names = new ArrayList<>();
    for (Sample s : experiment.samples()) {
      if (!names.contains(s.phase())) {
        names.add(s.phase());
      }
    }
    return names;
  }

  @SuppressWarnings("unchecked")
  private static void html(DegradedStoreExperiment experiment, Map<String, Object> report, Path file)
      throws Exception {
    List<Sample> samples = experiment.samples();
    double[] x = samples.stream().mapToDouble(Sample::seconds).toArray();
    List<Band> bands = new ArrayList<>();
    for (String phase : phaseNames(experiment)) {
      List<Sample> in = experiment.samples(phase);
      bands.add(new Band(phase, in.getFirst().seconds(), in.getLast().seconds()));
    }
    HtmlReport html = new HtmlReport("Flow control under a degraded store");
    html.paragraph(report.get("scenario") + ". Load " + report.get("load") + "; store slowed to "
        + report.get("degradedStore") + "; static limit " + report.get("staticLimit") + "; controller target "
        + TARGET_MILLIS + " ms. Accepted instances: " + report.get("acceptedInstances") + ", in the read model at the "
        + "end: " + report.get("instancesInReadModel") + ". Samples with a write limit while healthy: "
        + report.get("healthyPhaseSamplesWithALimit") + "; the controller engaged " + report.get("secondsToEngage")
        + " s into its phase and let go " + report.get("secondsToRelease") + " s after the store recovered.");
    List<List<String>> rows = new ArrayList<>();
    ((Map<String, Map<String, Object>>) report.get("phases")).forEach((phase, s) -> rows.add(List.of(phase,
        String.valueOf(s.get("seconds")), String.valueOf(s.get("acceptedPerSecond")),
        String.valueOf(s.get("rejectedPerSecond")), String.valueOf(s.get("writeRate")),
        String.valueOf(s.get("exportRate")), String.valueOf(s.get("meanLagMillis")),
        String.valueOf(s.get("endLagMillis")))));
    html.table(List.of("phase", "s", "accepted/s", "rejected/s", "write rec/s", "export rec/s", "mean lag ms",
        "end lag ms"), rows);
    html.chart("Write rate, export rate and write limit", "records/s", List.of(
        series("write rate", x, samples, Sample::writeRate),
        series("export rate", x, samples, Sample::exportRate),
        series("write limit", x, samples, s -> s.writeLimit() == null ? Double.NaN : s.writeLimit())), bands);
    html.chart("Export lag (age of the oldest record not yet durable)", "ms", List.of(
        series("lag", x, samples, s -> s.lagMillis()),
        series("target", x, samples, s -> TARGET_MILLIS)), bands);
    html.chart("Export lag in records", "records", List.of(series("backlog", x, samples, s -> s.lagRecords())), bands);
    html.chart("Client view: instances accepted and rejected (RESOURCE_EXHAUSTED)", "per second", List.of(
        series("accepted", x, samples, Sample::acceptedPerSecond),
        series("rejected", x, samples, Sample::rejectedPerSecond)), bands);
    html.write(file);
    System.out.println("html report: " + file);
  }

  private static Series series(String name, double[] x, List<Sample> samples, ToDoubleFunction<Sample> value) {
    return new Series(name, x, samples.stream().mapToDouble(value).toArray());
  }

  private static double mean(List<Sample> samples, ToDoubleFunction<Sample> value) {
    return samples.stream().mapToDouble(value).average().orElse(0);
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
