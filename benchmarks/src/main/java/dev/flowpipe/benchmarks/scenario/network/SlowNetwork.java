package dev.flowpipe.benchmarks.scenario.network;

import dev.flowpipe.benchmarks.cli.ScenarioArguments;
import dev.flowpipe.benchmarks.report.ReportWriter;
import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.HtmlReport.Band;
import dev.flowpipe.benchmarks.report.HtmlReport.Series;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.testsupport.NodeCluster;
import dev.flowpipe.testsupport.ClusterTopology;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.benchmarks.report.Figures;
import dev.flowpipe.benchmarks.report.HtmlReport;
import dev.flowpipe.benchmarks.report.LoadCharts;
import dev.flowpipe.benchmarks.load.LoadSettings;
import dev.flowpipe.benchmarks.load.LoadModel;
import dev.flowpipe.benchmarks.load.LoadGenerator;
import dev.flowpipe.benchmarks.load.LoadWindow;
import dev.flowpipe.benchmarks.load.LoadResult;
import dev.flowpipe.benchmarks.load.Availability;
import dev.flowpipe.benchmarks.load.AvailabilityProbe;
import dev.flowpipe.benchmarks.scenario.ramp.LoadScenario;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.Stream;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;

/**
 * {@code benchmarks/run slow-network [PI/s] [delay seconds] [delays] [calm seconds] [--partitions=1] [--warm-up=30s]
 * [load options]}:
 * the published network-latency experiment on loopback. Three node processes (replication 3) joined by
 * {@link PairwiseLinks}, one store of the run's own, a steady load through the gateway of a node that does not lead
 * partition 1; phases one after another: calm, then each delay added to the outgoing traffic of the node leading
 * partition 1 when the phase begins (to the other nodes and to the store, as {@code netem} on its host would), each
 * followed by a calm phase with every link undelayed. Per second: instances created and completed, process execution
 * latency, rejections, the leaders' commit latency, who leads, exporter lag; beside the load, availability probes (an
 * instance's end in the engine to COMPLETED in a store search and in the web app's API). Per phase: the same summed.
 */
public final class SlowNetwork {

  public static final int NODES = 3;
  private static final int PROBED_PARTITION = 1;

  private SlowNetwork() {}

  /** One stretch of the run: {@code delay} on {@code node}'s outgoing traffic (zero: none), for {@code seconds}. */
  public record Phase(String label, Duration delay, int seconds) {}

  /** The command line. */
  public record Settings(double rate, int delaySeconds, List<Duration> delays, int calmSeconds, int partitions,
      Duration warmUp, LoadSettings load) {
    public Settings {
      if (!(rate > 0)) {
        throw new IllegalArgumentException("slow-network: the rate must be > 0 PI/s, was " + rate);
      }
      if (delaySeconds < 10 || calmSeconds < 10) {
        throw new IllegalArgumentException("slow-network: delay and calm phases must be >= 10 s, were "
            + delaySeconds + " and " + calmSeconds);
      }
      if (delays.isEmpty() || delays.stream().anyMatch(d -> d.isNegative() || d.isZero())) {
        throw new IllegalArgumentException("slow-network: delays must be > 0, were " + delays);
      }
      if (warmUp.isNegative()) {
        throw new IllegalArgumentException("slow-network: --warm-up must be >= 0, was " + warmUp);
      }
      if (partitions < 1) {
        throw new IllegalArgumentException("slow-network: --partitions must be >= 1, was " + partitions);
      }
      if (load.gateway() != null) {
        throw new IllegalArgumentException("slow-network starts its own cluster; --gateway is for load, was "
            + load.gateway());
      }
    }

    /** The positional arguments, in order: {@code [PI/s] [delay seconds] [delays] [calm seconds]}. */
    public static final List<String> POSITIONAL = List.of("rate", "delay-seconds", "delays", "calm-seconds");

    /** Every argument of {@code slow-network}: the positional ones, its own options and the load's. */
    public static final List<String> NAMES = Stream.of(POSITIONAL, List.of("partitions", "warm-up"),
        LoadSettings.OPTIONS).flatMap(List::stream).toList();

    public static Settings parse(List<String> args) {
      ScenarioArguments arguments = ScenarioArguments.positional("slow-network", args, POSITIONAL, null);
      double rate = arguments.number("rate", 30);
      int delaySeconds = arguments.integer("delay-seconds", 120);
      List<Duration> delays = new ArrayList<>();
      for (String d : arguments.list("delays", List.of("100ms", "250ms"))) {
        delays.add(LoadSettings.duration("slow-network: --delays", d.trim()));
      }
      int calmSeconds = arguments.integer("calm-seconds", 60);
      int partitions = arguments.integer("partitions", 1);
      Duration warmUp = arguments.duration("warm-up", Duration.ofSeconds(30));
      LoadSettings load = LoadSettings.options(arguments, LoadSettings.defaults().ratePerSecond(),
          LoadSettings.defaults().duration());
      arguments.requireAllKnown(NAMES);
      return new Settings(rate, delaySeconds, delays, calmSeconds, partitions, warmUp, load);
    }

    public List<Phase> phases() {
      List<Phase> phases = new ArrayList<>(List.of(new Phase("calm", Duration.ZERO, calmSeconds)));
      for (Duration delay : delays) {
        phases.add(new Phase(delay.toMillis() + " ms", delay, delaySeconds));
        phases.add(new Phase("calm", Duration.ZERO, calmSeconds));
      }
      return phases;
    }
  }

  /** An availability probe: started at {@code second}; ms after its end until visible, -1 if not seen or failed. */
  public record Probe(double second, long storeMillis, long apiMillis) {}

  public static Report run(Path root, List<String> args, Path html) throws Exception {
    Settings settings = Settings.parse(args);
    List<Phase> phases = settings.phases();
    int totalSeconds = phases.stream().mapToInt(Phase::seconds).sum();
    LoadModel model = LoadModel.of(settings.load());
    Path work = ScratchDirectories.create("bench-slow-network-");
    long started = System.nanoTime();
    try (EmbeddedSearchStore opensearch = EmbeddedSearchStore.start(work.resolve("store"),
            EmbeddedStores.settings(root));
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(opensearch.url()));
        PairwiseLinks links = checked(new PairwiseLinks(NODES, URI.create(opensearch.url()), work.resolve("hosts")));
        NodeCluster cluster = new NodeCluster(root, work, NODES, NODES, links,
            records -> List.of("--flowpipe.broker.partitions-count=" + settings.partitions()))) {
      Map<Integer, Integer> leaders = ClusterTopology.awaitLeaders(cluster.gateway(0), settings.partitions(),
          Duration.ofMinutes(2));
      int firstLeader = leaders.get(PROBED_PARTITION);
      int gatewayNode = (firstLeader + 1) % NODES;
      System.out.printf(Locale.ROOT, "[%.0f s] cluster up, leaders by partition %s; clients on node %d's gateway%n",
          seconds(started), leaders, gatewayNode);
      List<URI> nodeHttp = new ArrayList<>();
      for (int id = 0; id < NODES; id++) {
        nodeHttp.add(URI.create("http://127.0.0.1:" + cluster.node(id).httpPort()));
      }
      try (ZeebeClient client = ZeebeClient.newClientBuilder().grpcAddress(cluster.gateway(gatewayNode))
          .usePlaintext().defaultRequestTimeout(LoadGenerator.REQUEST_TIMEOUT).build()) {
        model.deploy(client);
        client.newDeployResourceCommand().addProcessModel(
            Bpmn.createExecutableProcess(Availability.PROBE).startEvent().endEvent().done(), "probe.bpmn")
            .send().join();
        LoadSettings load = settings.load().withRate(settings.rate()).withDuration(Duration.ofSeconds(totalSeconds));
        if (!settings.warmUp().isZero()) {
          LoadResult warm = new LoadGenerator(client, load.withDuration(settings.warmUp()), model, null,
              System.out::println, 10).run();
          System.out.println("warm-up (not reported): " + warm.summary());
        }
        long loadStart = System.nanoTime();
        List<Probe> probes = new ArrayList<>();
        List<Applied> applied = new ArrayList<>();
        LoadResult result;
        try (ClusterSampler sampler = new ClusterSampler(nodeHttp, loadStart)) {
          AvailabilityProbe probe = new AvailabilityProbe(client, store, "flowpipe", nodeHttp.get(gatewayNode));
          Thread probing = Thread.ofPlatform().daemon().name("slow-network-probes")
              .start(() -> probe(probe, probes, loadStart));
          Thread phasing = Thread.ofPlatform().daemon().name("slow-network-phases")
              .start(() -> applyPhases(phases, links, sampler, loadStart, applied));
          result = new LoadGenerator(client, load, model, null, System.out::println, 10).run();
          phasing.interrupt();
          phasing.join();
          links.delayOutgoing(-1, Duration.ZERO);
          probing.interrupt();
          probing.join(70_000);
          Run run = new Run(settings, phases, applied, result, sampler.samples(), probes(probes));
          Report report = new Report(run.toSection().figure("gatewayNode", gatewayNode));
          run.html(html);
          return report;
        }
      }
    }
  }

  private static PairwiseLinks checked(PairwiseLinks links) throws java.io.IOException {
    try {
      links.checkNamespaces();
      return links;
    } catch (java.io.IOException | RuntimeException e) {
      links.close();
      throw e;
    }
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  /** At each phase's start: the delay on the outgoing traffic of the node then leading the probed partition. */
  private static void applyPhases(List<Phase> phases, PairwiseLinks links, ClusterSampler sampler, long loadStart,
      List<Applied> applied) {
    long phaseStart = loadStart;
    for (Phase phase : phases) {
      long wait = phaseStart - System.nanoTime();
      try {
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000);
        }
      } catch (InterruptedException e) {
        return;
      }
      int node = phase.delay().isZero() ? -1 : sampler.leaderOf(PROBED_PARTITION);
      links.delayOutgoing(node, phase.delay());
      Applied entry = new Applied(Math.round(seconds(loadStart) * 10) / 10.0, phase.label(), node < 0 ? null : node,
          phase.delay().toMillis());
      synchronized (applied) {
        applied.add(entry);
      }
      System.out.printf(Locale.ROOT, "[%.0f s of load] phase %s%s%n", seconds(loadStart), phase.label(),
          node < 0 ? ": every link undelayed" : " on node " + node + "'s outgoing traffic (it leads partition "
              + PROBED_PARTITION + ")");
      phaseStart += phase.seconds() * 1_000_000_000L;
    }
  }

  private static void probe(AvailabilityProbe probe, List<Probe> probes, long loadStart) {
    while (!Thread.currentThread().isInterrupted()) {
      double second = seconds(loadStart);
      Probe outcome;
      try {
        AvailabilityProbe.Visibility v = probe.probe();
        outcome = new Probe(Math.round(second * 10) / 10.0, v.storeMillis(), v.apiMillis());
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        outcome = new Probe(Math.round(second * 10) / 10.0, -1, -1);
      }
      synchronized (probes) {
        probes.add(outcome);
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static List<Probe> probes(List<Probe> probes) {
    synchronized (probes) {
      return List.copyOf(probes);
    }
  }

  /** The run's figures per phase and per second, as JSON and as a page. */
  /** A phase as it was applied: when, and the node whose outgoing traffic was delayed (null: none). */
  public record Applied(double atSecond, String phase, Integer delayedNode, long delayMillis) {}

  /** A change of a partition's leader: the second and the old and new leader. */
  public record LeaderChange(double second, int partition, int from, int to) {}

  private record Run(Settings settings, List<Phase> phases, List<Applied> applied, LoadResult load,
      List<ClusterSampler.Sample> samples, List<Probe> probes) {

    public Section toSection() {
      Section json = Report.describing("slow-network: " + NODES + " node processes on loopback (replication " + NODES + ", "
          + settings.partitions() + " partition(s)), one link per ordered pair of nodes, a steady load through the"
          + " gateway of a node not leading partition " + PROBED_PARTITION + "; each delay added to everything the"
          + " node leading partition " + PROBED_PARTITION + " sends (to the other nodes and to the store), then"
          + " removed").body();
      json.section("settings").figure("ratePerSecond", settings.rate())
          .figure("warmUpSeconds", settings.warmUp().toSeconds())
          .figure("delaySeconds", settings.delaySeconds())
          .figure("calmSeconds", settings.calmSeconds())
          .figures("delaysMillis", settings.delays().stream().map(Duration::toMillis).toList(), Unit.MILLIS)
          .figure("partitions", settings.partitions())
          .section("load", LoadScenario.describe(settings.load().withRate(settings.rate()),
              LoadModel.of(settings.load())));
      json.typed("phasesApplied", applied)
          .sections("phases", phaseSummaries())
          .section("loadSummary", load.summary())
          .typed("leaderChanges", leaderChanges())
          .sections("samples", samples.stream().map(s -> new Section().figure("second", s.second())
              .typed("leaders", s.leaders())
              .figure("commitLatencyMillis", s.commitLatencyMillis() < 0 ? null : s.commitLatencyMillis())
              .figure("committedEntries", s.committedEntries())
              .figure("droppedShare", s.droppedShare())
              .figure("lagAgeMillis", s.lagAgeMillis() < 0 ? null : s.lagAgeMillis())
              .figure("refusedByFlowControl", s.refusedByFlowControl())
              .figure("unanswered", s.unanswered())).toList())
          .sections("windows", load.windows().stream().map(LoadWindow::toSection).toList())
          .typed("probes", probes);
      return json;
    }

    /** Every change of leader of any partition: the second and the new leader (-1 while none). */
    public List<LeaderChange> leaderChanges() {
      List<LeaderChange> changes = new ArrayList<>();
      Map<Integer, Integer> known = new LinkedHashMap<>();
      for (ClusterSampler.Sample s : samples) {
        for (int partition = 1; partition <= settings.partitions(); partition++) {
          Integer leader = s.leaders().get(partition);
          if (leader != null && known.containsKey(partition) && !Objects.equals(known.get(partition), leader)) {
            changes.add(new LeaderChange(s.second(), partition, known.get(partition), leader));
          }
          if (leader != null) {
            known.put(partition, leader);
          }
        }
      }
      return changes;
    }

    public List<Section> phaseSummaries() {
      List<Section> out = new ArrayList<>();
      int from = 0;
      for (int i = 0; i < phases.size(); i++) {
        Phase phase = phases.get(i);
        int to = from + phase.seconds();
        final int start = from;
        Section m = new Section().text("phase", phase.label()).figure("fromSecond", from).figure("toSecond", to)
            .figure("delayedNode", i < applied.size() ? applied.get(i).delayedNode() : null);
        List<LoadWindow> windows = load.windows().stream().filter(w -> w.second() >= start && w.second() < to)
            .toList();
        m.figure("createdPerSecond", LoadResult.round(windows.stream().mapToLong(LoadWindow::created).sum()
            / (double) phase.seconds()));
        m.figure("completedPerSecond", LoadResult.round(windows.stream().mapToLong(LoadWindow::completed).sum()
            / (double) phase.seconds()));
        long commands = windows.stream().mapToLong(LoadWindow::commands).sum();
        m.figure("rejectedShare", commands == 0 ? 0 : Math.round(windows.stream().mapToLong(LoadWindow::rejected).sum()
            * 10_000.0 / commands) / 10_000.0);
        m.figure("createTimedOut", windows.stream().mapToLong(LoadWindow::createTimedOut).sum());
        m.figure("latencyP99MillisMedianOfSeconds", median(windows.stream().mapToLong(LoadWindow::latencyP99)
            .filter(v -> v >= 0).toArray()));
        m.figure("latencyMaxMillis", windows.stream().mapToLong(LoadWindow::latencyMax).max().orElse(-1));
        List<ClusterSampler.Sample> inPhase = samples.stream()
            .filter(s -> s.second() >= start && s.second() < to).toList();
        m.figure("commitLatencyMillisMean", meanOf(inPhase, ClusterSampler.Sample::commitLatencyMillis));
        m.figure("lagAgeMillisMax", inPhase.stream().mapToLong(ClusterSampler.Sample::lagAgeMillis).max().orElse(-1));
        m.figure("droppedShareMean", meanOf(inPhase, ClusterSampler.Sample::droppedShare));
        m.figure("refusedByFlowControl", inPhase.stream().mapToLong(ClusterSampler.Sample::refusedByFlowControl).sum());
        m.figure("leaderChanges", leaderChanges().stream().filter(c -> c.second() >= start && c.second() < to)
            .count());
        List<Probe> phaseProbes = probes.stream().filter(p -> p.second() >= start && p.second() < to).toList();
        m.figure("probes", phaseProbes.size())
            .figure("probesNotSeen", phaseProbes.stream().filter(p -> p.storeMillis() < 0).count())
            .section("availabilityStoreMillis", percentiles(phaseProbes, Probe::storeMillis))
            .section("availabilityApiMillis", percentiles(phaseProbes, Probe::apiMillis));
        out.add(m);
        from = to;
      }
      return out;
    }

    private static long median(long[] values) {
      if (values.length == 0) {
        return -1;
      }
      long[] sorted = values.clone();
      java.util.Arrays.sort(sorted);
      return sorted[sorted.length / 2];
    }

    private static double meanOf(List<ClusterSampler.Sample> samples, ToDoubleFunction<ClusterSampler.Sample> field) {
      double mean = samples.stream().mapToDouble(field).filter(v -> v >= 0).average().orElse(-1);
      return Math.round(mean * 1000) / 1000.0;
    }

    private static Section percentiles(List<Probe> probes, java.util.function.ToLongFunction<Probe> f) {
      Histogram histogram = new Histogram(java.util.concurrent.TimeUnit.MINUTES.toMillis(5), 3);
      probes.stream().mapToLong(f).filter(v -> v >= 0)
          .forEach(v -> histogram.recordValue(Math.min(v, histogram.getHighestTrackableValue())));
      return Figures.percentiles(histogram);
    }

    public void html(Path file) throws Exception {
      HtmlReport html = new HtmlReport("Slow network: delay on the leader's outgoing traffic");
      Map<String, Object> json = ReportWriter.tree(new Report(toSection()));
      html.paragraph(json.get("scenario") + ". Settings: " + json.get("settings") + ". Date: "
          + java.time.LocalDate.now() + ".");
      List<String> header = List.of("phase", "s", "delayed node", "completed/s", "rejected", "timed out",
          "latency p99 (median of s)", "commit latency mean", "lag max", "leader changes", "refused by FC",
          "availability p50 / p99 (store)", "probes not seen");
      List<List<String>> rows = new ArrayList<>();
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> phaseRows = (List<Map<String, Object>>) json.get("phases");
      for (Map<String, Object> p : phaseRows) {
        @SuppressWarnings("unchecked")
        Map<String, Object> availability = (Map<String, Object>) p.get("availabilityStoreMillis");
        rows.add(List.of(String.valueOf(p.get("phase")), p.get("fromSecond") + "-" + p.get("toSecond"),
            String.valueOf(p.get("delayedNode")), String.valueOf(p.get("completedPerSecond")),
            LoadScenario.percent(((Number) p.get("rejectedShare")).doubleValue()),
            String.valueOf(p.get("createTimedOut")), p.get("latencyP99MillisMedianOfSeconds") + " ms",
            p.get("commitLatencyMillisMean") + " ms", p.get("lagAgeMillisMax") + " ms",
            String.valueOf(p.get("leaderChanges")), String.valueOf(p.get("refusedByFlowControl")),
            availability.get("p50") + " / " + availability.get("p99") + " ms", String.valueOf(p.get("probesNotSeen"))));
      }
      html.table(header, rows);
      html.paragraph("Leader changes: " + json.get("leaderChanges") + ".");
      List<Band> bands = new ArrayList<>();
      int from = 0;
      for (Phase phase : phases) {
        bands.add(new Band(phase.label(), from, from + phase.seconds()));
        from += phase.seconds();
      }
      LoadCharts.add(html, LoadCharts.points(load, 0), bands);
      double[] x = samples.stream().mapToDouble(ClusterSampler.Sample::second).toArray();
      html.chart("Commit latency (append to commit) on the leaders, mean per second", "ms", List.of(new Series(
          "commit latency", x, samples.stream().mapToDouble(s -> s.commitLatencyMillis() < 0 ? Double.NaN
              : s.commitLatencyMillis()).toArray())), bands);
      List<Series> leaderSeries = new ArrayList<>();
      for (int partition = 1; partition <= settings.partitions(); partition++) {
        final int p = partition;
        leaderSeries.add(new Series("partition " + p, x, samples.stream()
            .mapToDouble(s -> s.leaders().containsKey(p) ? s.leaders().get(p) : Double.NaN).toArray()));
      }
      html.chart("Leader (node id) by partition", "node", leaderSeries, bands);
      html.chart("Exporter lag, largest of the nodes", "ms", List.of(new Series("lag age", x, samples.stream()
          .mapToDouble(s -> s.lagAgeMillis() < 0 ? Double.NaN : s.lagAgeMillis()).toArray())), bands);
      double[] px = probes.stream().mapToDouble(Probe::second).toArray();
      html.chart("Data availability: an instance's end to COMPLETED, by the probe's start", "ms", List.of(
          new Series("store search", px, probes.stream().mapToDouble(p -> p.storeMillis() < 0 ? Double.NaN
              : p.storeMillis()).toArray()),
          new Series("web app API", px, probes.stream().mapToDouble(p -> p.apiMillis() < 0 ? Double.NaN
              : p.apiMillis()).toArray())), bands);
      html.write(file);
      System.out.println("html report: " + file);
    }
  }
}
