package dev.flowpipe.benchmarks.scenario.ramp;

import dev.flowpipe.benchmarks.cli.ScenarioArguments;
import dev.flowpipe.benchmarks.report.ReportWriter;
import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.HtmlReport.Band;
import dev.flowpipe.benchmarks.report.HtmlReport.Series;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.benchmarks.report.HtmlReport;
import dev.flowpipe.benchmarks.report.LoadCharts;
import dev.flowpipe.benchmarks.prometheus.ExporterLag;
import dev.flowpipe.benchmarks.prometheus.FlowControlRefusals;
import dev.flowpipe.benchmarks.load.LoadSettings;
import dev.flowpipe.benchmarks.load.LoadModel;
import dev.flowpipe.benchmarks.load.LoadGenerator;
import dev.flowpipe.benchmarks.load.LoadWindow;
import dev.flowpipe.benchmarks.load.LoadResult;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import io.camunda.zeebe.client.ZeebeClient;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code benchmarks/run ramp [start] [step] [step seconds] [--max-rate=N] [--flow-control=on|off|both]
 * [--warm-up=15s] [--max-ramp-time=4m] [--payload=..] [--worker-delay=..]}: after a warm-up at the start rate (not
 * judged), the load generator's rate raised step by step on a fresh node (one node per ramp, the steps one after
 * another on it) until a step ends in sustained backpressure or the node falls behind (see {@link RampStep}), the
 * max rate is reached, or the ramp's time budget would be exceeded by another step (so a bounded run always writes
 * its report); the result is the highest clean rate. {@code on} runs the node with its defaults (our flow control on:
 * its write limit rejects commands when the exporter lags); {@code off} adds
 * {@code --flowpipe.flow-control.enabled=false} (only the broker's own request limiter is left). Writes
 * {@code results/ramp.json} and {@code results/ramp.html}.
 */
public final class ThroughputRamp {

  public static final String FLOW_CONTROL_OFF = "--flowpipe.flow-control.enabled=false";

  private ThroughputRamp() {}

  /** The ramp's own settings; the load settings of each step come from {@code load} with the step's rate. */
  public record Settings(double start, double step, Duration stepLength, double maxRate, List<String> variants,
      Duration warmUp, Duration budget, LoadSettings load) {
    public Settings {
      if (budget.compareTo(stepLength) < 0) {
        throw new IllegalArgumentException("max-ramp-time must be at least one step (" + stepLength.toSeconds()
            + " s), was " + budget);
      }
      if (warmUp.isNegative()) {
        throw new IllegalArgumentException("warm-up must be >= 0, was " + warmUp);
      }
      if (!(start > 0)) {
        throw new IllegalArgumentException("start rate must be > 0 PI/s, was " + start);
      }
      if (!(step > 0)) {
        throw new IllegalArgumentException("step must be > 0 PI/s, was " + step);
      }
      if (stepLength.compareTo(Duration.ofSeconds(RampStep.SUSTAINED_WINDOWS * 2L)) < 0) {
        throw new IllegalArgumentException("step seconds must be >= " + RampStep.SUSTAINED_WINDOWS * 2
            + " (the backpressure rule reads the last " + RampStep.SUSTAINED_WINDOWS + " seconds), was "
            + stepLength.toMillis() / 1000.0);
      }
      if (maxRate < start) {
        throw new IllegalArgumentException("max rate must be >= the start rate " + start + ", was " + maxRate);
      }
      for (String v : variants) {
        if (!v.equals("on") && !v.equals("off")) {
          throw new IllegalArgumentException("flow-control must be on, off or both, was '" + v + "'");
        }
      }
      if (load.gateway() != null) {
        throw new IllegalArgumentException("the ramp starts its own fresh node; --gateway is for load, was "
            + load.gateway());
      }
    }

    /** The ramp's positional arguments, in order: {@code [start] [step] [step seconds]}. */
    public static final List<String> POSITIONAL = List.of("start", "step", "step-seconds");

    /** Every argument of {@code ramp}: the positional ones, its own options and the load's. */
    public static final List<String> NAMES = Stream.of(POSITIONAL,
        List.of("max-rate", "max-ramp-time", "warm-up", "flow-control"), LoadSettings.OPTIONS)
        .flatMap(List::stream).toList();

    /** The {@code ramp} command line. */
    public static Settings parse(List<String> args) {
      ScenarioArguments arguments = ScenarioArguments.positional("ramp", args, POSITIONAL, null);
      Settings settings = from(arguments);
      arguments.requireAllKnown(NAMES);
      return settings;
    }

    /** The ramp's settings among a scenario's arguments (the caller checks that none is left). */
    public static Settings from(ScenarioArguments arguments) {
      double start = arguments.number("start", 10);
      double step = arguments.number("step", 10);
      double seconds = arguments.number("step-seconds", 20);
      double maxRate = arguments.number("max-rate", 400);
      Duration budget = arguments.duration("max-ramp-time", Duration.ofMinutes(4));
      Duration warmUp = arguments.duration("warm-up", Duration.ofSeconds(15));
      String flowControl = arguments.text("flow-control", "both");
      List<String> variants = flowControl.equals("both") ? List.of("on", "off") : List.of(flowControl);
      Duration stepLength = Duration.ofMillis(Math.round(seconds * 1000));
      // each step sets its own rate; a step length of 0 is refused by the ramp's rules, naming step seconds
      LoadSettings load = LoadSettings.options(arguments, LoadSettings.defaults().ratePerSecond(),
          stepLength.isPositive() ? stepLength : Duration.ofSeconds(1));
      return new Settings(start, step, stepLength, maxRate, variants, warmUp, budget, load);
    }
  }

  /** The steps of one ramp on one node. */
  public record Ramp(String variant, List<String> nodeArguments, LoadResult warmUp, long warmUpRefusedByFlowControl,
      List<RampStep> steps) {}

  public static Report run(Path root, List<String> args) throws Exception {
    Settings settings = Settings.parse(args);
    LoadModel model = LoadModel.of(settings.load());
    List<Ramp> ramps = new ArrayList<>();
    long started = System.nanoTime();
    for (String variant : settings.variants()) {
      List<String> nodeArgs = variant.equals("off") ? List.of(FLOW_CONTROL_OFF) : List.of();
      System.out.printf(Locale.ROOT, "[%.0f s] ramp with flow control %s: starting a fresh node %s%n",
          (System.nanoTime() - started) / 1e9, variant, nodeArgs);
      try (NodeProcess node = NodeProcess.start(root, ScratchDirectories.create("bench-ramp"), nodeArgs);
          ZeebeClient client = ScenarioNodes.client(node)) {
        model.deploy(client);
        URI http = URI.create("http://127.0.0.1:" + node.httpPort());
        FlowControlRefusals refusals = new FlowControlRefusals(http);
        long refusedBeforeWarmUp = refusals.read();
        LoadResult warmUp = warmUp(client, settings, model, http, started);
        long warmUpRefused = refusals.read() - refusedBeforeWarmUp;
        if (warmUp != null) {
          System.out.println("warm-up: " + warmUp.summary() + ", refused by flow control " + warmUpRefused);
        }
        ramps.add(new Ramp(variant, nodeArgs, warmUp, warmUpRefused,
            ramp(client, settings, model, List.of(http), started)));
      }
    }
    Report report = report(settings, model, ramps);
    html(ReportWriter.tree(report), settings, ramps, root.resolve("benchmarks/results/ramp.html"));
    return report;
  }

  /**
   * The warm-up at the start rate (a fresh node's store is still warming up: JIT, first segments), not judged as a
   * step; null when the settings ask for none.
   */
  public static LoadResult warmUp(ZeebeClient client, Settings settings, LoadModel model, URI http, long started)
      throws InterruptedException {
    if (settings.warmUp().isZero()) {
      return null;
    }
    System.out.printf(Locale.ROOT, "[%.0f s] warm-up: %.1f PI/s for %d s (not a step)%n",
        (System.nanoTime() - started) / 1e9, settings.start(), settings.warmUp().toSeconds());
    return new LoadGenerator(client, settings.load().withRate(settings.start()).withDuration(settings.warmUp())
        .withNodeHttp(http), model, new ExporterLag.Reader(http), System.out::println, 5).run();
  }

  /**
   * The steps on the node or cluster whose nodes answer HTTP at {@code nodesHttp}: refusals by flow control summed
   * over them, the exporter lag the largest of theirs.
   */
  public static List<RampStep> ramp(ZeebeClient client, Settings settings, LoadModel model, List<URI> nodesHttp,
      long started) throws InterruptedException, java.io.IOException {
    List<RampStep> steps = new ArrayList<>();
    URI http = nodesHttp.getFirst();
    FlowControlRefusals refusals = new FlowControlRefusals(nodesHttp);
    long rampStarted = System.nanoTime();
    for (double rate = settings.start(); rate <= settings.maxRate() + 1e-9; rate += settings.step()) {
      // the first step always runs: the settings require a budget of at least one step
      long endOfNextStep = System.nanoTime() - rampStarted + settings.stepLength().toNanos();
      if (!steps.isEmpty() && endOfNextStep > settings.budget().toNanos()) {
        System.out.printf(Locale.ROOT, "time budget of %d s per ramp reached: no step at %.1f PI/s%n",
            settings.budget().toSeconds(), rate);
        break;
      }
      LoadSettings load = settings.load().withRate(rate).withNodeHttp(http);
      System.out.printf(Locale.ROOT, "[%.0f s] step %d: %.1f PI/s for %d s%n", (System.nanoTime() - started) / 1e9,
          steps.size() + 1, rate, settings.stepLength().toSeconds());
      long refusedBefore = refusals.read();
      LoadResult result = new LoadGenerator(client, load, model, new ExporterLag.Reader(nodesHttp),
          System.out::println, 5).run();
      RampStep step = new RampStep(rate, result, refusals.read() - refusedBefore);
      steps.add(step);
      System.out.printf(Locale.ROOT, "[%.0f s] step %d: %.1f PI/s offered -> created %.1f/s, completed %.1f/s "
              + "(late in step %.1f/s), rejected %s (%d by flow control), latency p99 %d ms, max lag %d ms: %s%n",
          (System.nanoTime() - started) / 1e9, steps.size(), rate, result.createdPerSecond(),
          result.completedPerSecond(), step.completedPerSecondLateInStep(),
          LoadScenario.percent(result.rejectedShare()), step.refusedByFlowControl(),
          result.latency().getValueAtPercentile(99), result.maxLagAgeMillis(), step.verdict());
      if (step.endsRamp()) {
        break;
      }
    }
    return steps;
  }

  public static Report report(Settings settings, LoadModel model, List<Ramp> ramps) {
    Report report = Report.describing("throughput ramp: the load generator's rate raised step by step on a fresh node until "
        + "backpressure is sustained (a rejected command in each of the last " + RampStep.SUSTAINED_WINDOWS
        + " seconds of a step) or the node falls behind (completions late in the step below "
        + (int) (RampStep.KEEP_UP_SHARE * 100) + "% of the offered rate, or starts held back / timed out); "
        + "result: the highest clean rate (no rejection, no error, kept up)");
    report.body().section("settings").figure("startPerSecond", settings.start())
        .figure("stepPerSecond", settings.step())
        .figure("stepSeconds", settings.stepLength().toMillis() / 1000.0)
        .figure("maxRatePerSecond", settings.maxRate())
        .figure("warmUpSeconds", settings.warmUp().toMillis() / 1000.0)
        .figure("maxRampSeconds", settings.budget().toSeconds())
        .section("load", LoadScenario.describe(settings.load(), model));
    Section byVariant = report.body().section("ramps");
    for (Ramp ramp : ramps) {
      Section r = byVariant.section(ramp.variant());
      r.text("flowControl", ramp.variant().equals("on") ? "on (node defaults)" : "off");
      r.typed("nodeArguments", ramp.nodeArguments());
      if (ramp.warmUp() == null) {
        r.put("warmUp", new Section.Empty());
      } else {
        r.section("warmUp", ramp.warmUp().summary());
      }
      r.figure("warmUpRefusedByFlowControl", ramp.warmUpRefusedByFlowControl());
      r.figure("highestCleanRatePerSecond", RampStep.highestCleanRate(ramp.steps()));
      RampStep last = ramp.steps().getLast();
      r.text("stoppedBecause", last.endsRamp() ? last.verdict() + " at " + last.rate() + " PI/s"
          : last.rate() + settings.step() > settings.maxRate() + 1e-9
              ? "reached the max rate " + settings.maxRate() + " PI/s"
              : "time budget of " + settings.budget().toSeconds() + " s per ramp reached after " + last.rate()
                  + " PI/s, before sustained backpressure");
      double highestClean = RampStep.highestCleanRate(ramp.steps());
      r.figure("refusedByFlowControlUpTo80PercentOfHighestCleanRate", ramp.steps().stream()
          .filter(step -> step.rate() <= 0.8 * highestClean + 1e-9).mapToLong(RampStep::refusedByFlowControl).sum());
      r.figure("refusedByFlowControl", ramp.steps().stream().mapToLong(RampStep::refusedByFlowControl).sum());
      r.figure("peakCompletedPerSecond", LoadResult.round(
          ramp.steps().stream().mapToDouble(RampStep::completedPerSecondLateInStep).max().orElse(0)));
      List<Section> steps = new ArrayList<>();
      for (RampStep step : ramp.steps()) {
        steps.add(new Section().figure("rate", step.rate(), Unit.PER_SECOND)
            .text("verdict", step.verdict().toString())
            .figure("refusedByFlowControl", step.refusedByFlowControl())
            .figure("completedPerSecondLateInStep", LoadResult.round(step.completedPerSecondLateInStep()))
            .merge(step.result().summary())
            .sections("windows", step.result().windows().stream().map(LoadWindow::toSection).toList()));
      }
      r.sections("steps", steps);
    }
    return report;
  }

  @SuppressWarnings("unchecked")
  private static void html(Map<String, Object> report, Settings settings, List<Ramp> ramps, Path file)
      throws Exception {
    HtmlReport html = new HtmlReport("Throughput ramp");
    html.paragraph(report.get("scenario") + ". Settings: " + report.get("settings") + ". Date: "
        + java.time.LocalDate.now() + ".");
    Map<String, Map<String, Object>> byVariant = (Map<String, Map<String, Object>>) report.get("ramps");
    html.heading("Runs side by side");
    List<List<String>> comparison = new ArrayList<>();
    byVariant.forEach((variant, r) -> comparison.add(List.of(String.valueOf(r.get("flowControl")),
        String.valueOf(r.get("highestCleanRatePerSecond")), String.valueOf(r.get("peakCompletedPerSecond")),
        String.valueOf(r.get("refusedByFlowControlUpTo80PercentOfHighestCleanRate")),
        String.valueOf(r.get("stoppedBecause")), String.valueOf(((List<?>) r.get("steps")).size()))));
    html.table(List.of("flow control", "highest clean rate PI/s", "peak completed/s (late in a step)",
        "refused by flow control up to 80% of it", "stopped because", "steps"), comparison);
    List<Series> completedByRate = new ArrayList<>();
    List<Series> p99ByRate = new ArrayList<>();
    for (Ramp ramp : ramps) {
      double[] rates = ramp.steps().stream().mapToDouble(RampStep::rate).toArray();
      completedByRate.add(new Series("completed/s, flow control " + ramp.variant(), rates,
          ramp.steps().stream().mapToDouble(RampStep::completedPerSecondLateInStep).toArray()));
      p99ByRate.add(new Series("p99, flow control " + ramp.variant(), rates,
          ramp.steps().stream().mapToDouble(s -> s.result().latency().getValueAtPercentile(99)).toArray()));
    }
    if (!ramps.isEmpty()) {
      double[] offered = ramps.stream().flatMap(r -> r.steps().stream()).mapToDouble(RampStep::rate).sorted()
          .distinct().toArray();
      completedByRate.add(new Series("offered", offered, offered));
    }
    html.chart("Completed per second (second half of each step) against the offered rate", "instances/s", "PI/s",
        completedByRate, List.of());
    html.chart("Execution latency p99 of each step against the offered rate", "ms", "PI/s", p99ByRate, List.of());
    for (Ramp ramp : ramps) {
      html.heading("Flow control " + ramp.variant() + (ramp.nodeArguments().isEmpty() ? " (node defaults)"
          : " (" + String.join(" ", ramp.nodeArguments()) + ")"));
      List<List<String>> rows = new ArrayList<>();
      List<LoadCharts.Point> points = new ArrayList<>();
      List<Band> bands = new ArrayList<>();
      double offset = 0;
      for (RampStep step : ramp.steps()) {
        LoadResult r = step.result();
        rows.add(List.of(String.valueOf(step.rate()), String.valueOf(LoadResult.round(r.createdPerSecond())),
            String.valueOf(LoadResult.round(r.completedPerSecond())),
            String.valueOf(LoadResult.round(step.completedPerSecondLateInStep())),
            LoadScenario.percent(r.rejectedShare()), String.valueOf(step.refusedByFlowControl()),
            String.valueOf(r.total(LoadWindow::heldBack)),
            String.valueOf(r.latency().getValueAtPercentile(50)), String.valueOf(r.latency().getValueAtPercentile(90)),
            String.valueOf(r.latency().getValueAtPercentile(99)), String.valueOf(r.latency().getMaxValue()),
            String.valueOf(r.maxLagAgeMillis()), String.valueOf(r.maxLagRecords()), step.verdict().toString()));
        points.addAll(LoadCharts.points(r, offset));
        bands.add(new Band(LoadResult.round(step.rate()) + "/s", offset, offset + r.windows().size()));
        offset += r.windows().size();
      }
      html.table(List.of("offered/s", "created/s", "completed/s", "completed/s late", "rejected",
          "refused by flow control", "held back",
          "p50 ms", "p90 ms", "p99 ms", "max ms", "max lag ms", "max lag records", "verdict"), rows);
      LoadCharts.add(html, points, bands);
    }
    html.write(file);
    System.out.println("html report: " + file);
  }
}
