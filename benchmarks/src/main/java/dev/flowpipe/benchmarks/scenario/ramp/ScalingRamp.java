package dev.flowpipe.benchmarks.scenario.ramp;

import dev.flowpipe.benchmarks.cli.ScenarioArguments;
import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.testsupport.NodeCluster;
import dev.flowpipe.testsupport.ClusterTopology;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.benchmarks.load.LoadModel;
import dev.flowpipe.benchmarks.load.LoadWindow;
import dev.flowpipe.benchmarks.load.LoadResult;
import dev.flowpipe.benchmarks.scenario.overhead.CpuCost;
import io.camunda.zeebe.client.ZeebeClient;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.Locale;

/**
 * {@code benchmarks/run scaling [start] [step] [step seconds] [--configs=1/1/1,2/2/1,3/3/3] [ramp options]}: the
 * published scaling method (raise the load in fixed steps until backpressure stays above zero) on clusters of node
 * processes on loopback, one configuration after another, each {@code nodes/partitions/replication} with a store of its
 * own that every node writes to, flow control on its defaults, the clients on node 0's gateway. Per configuration: the
 * ramp's highest clean rate, that rate per partition, why the ramp stopped, and the CPU time of every node and of the
 * store over the whole ramp per completed instance. The nodes share this machine's cores, so absolute scaling cannot
 * show here: the report says what the rate per partition and the CPU per instance do as the cluster grows.
 */
public final class ScalingRamp {

  private ScalingRamp() {}

  /** One cluster configuration. */
  public record Config(int nodes, int partitions, int replication) {
    public Config {
      if (nodes < 1 || partitions < 1 || replication < 1 || replication > nodes) {
        throw new IllegalArgumentException("a configuration is nodes/partitions/replication, each >= 1, replication"
            + " at most nodes; was " + nodes + "/" + partitions + "/" + replication);
      }
    }

    public static List<Config> parseAll(String text) {
      List<Config> configs = new ArrayList<>();
      for (String one : text.split(",")) {
        String[] parts = one.trim().split("/");
        try {
          configs.add(new Config(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])));
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("--configs entries are nodes/partitions/replication, e.g. 3/3/3; was '"
              + one + "'", e);
        }
      }
      return configs;
    }

    @Override
    public String toString() {
      return nodes + " node(s), " + partitions + " partition(s), replication " + replication;
    }
  }

  public static Report run(Path root, List<String> args) throws Exception {
    ScenarioArguments arguments = ScenarioArguments.positional("scaling", args, ThroughputRamp.Settings.POSITIONAL,
        null);
    List<Config> configs = Config.parseAll(arguments.text("configs", "1/1/1,2/2/1,3/3/3"));
    if (!arguments.texts("flow-control").isEmpty()) {
      throw new IllegalArgumentException("scaling: every ramp runs with flow control on; --flow-control is ramp's");
    }
    ThroughputRamp.Settings ramp = ThroughputRamp.Settings.from(arguments);
    arguments.requireAllKnown(Stream.concat(Stream.of("configs"),
        ThroughputRamp.Settings.NAMES.stream().filter(name -> !name.equals("flow-control"))).toList());
    ThroughputRamp.Settings settings = new ThroughputRamp.Settings(ramp.start(), ramp.step(), ramp.stepLength(),
        ramp.maxRate(), List.of("on"), ramp.warmUp(), ramp.budget(), ramp.load());
    LoadModel model = LoadModel.of(settings.load());
    long started = System.nanoTime();
    List<Section> results = new ArrayList<>();
    for (Config config : configs) {
      System.out.printf(Locale.ROOT, "[%.0f s] %s: starting the store and the nodes%n",
          (System.nanoTime() - started) / 1e9, config);
      results.add(rampOn(root, config, settings, model, started));
    }
    Report report = Report.describing("scaling: the throughput ramp (highest clean rate; see ramp) on clusters of node processes"
        + " on loopback sharing this machine's cores, each configuration with a store of its own, flow control on,"
        + " clients on node 0's gateway; CPU time of the nodes and the store over the whole ramp per completed"
        + " instance. Absolute scaling cannot show on shared cores; the rate per partition and the CPU per instance"
        + " say what adding nodes and partitions costs or gains here");
    report.body().section("settings").figure("startPerSecond", settings.start())
        .figure("stepPerSecond", settings.step()).figure("stepSeconds", settings.stepLength().toMillis() / 1000.0)
        .figure("maxRampSeconds", settings.budget().toSeconds())
        .section("load", LoadScenario.describe(settings.load(), model));
    report.body().sections("configurations", results);
    return report;
  }

  private static Section rampOn(Path root, Config config, ThroughputRamp.Settings settings,
      LoadModel model, long started) throws Exception {
    Path work = ScratchDirectories.create("bench-scaling-" + config.nodes() + "-" + config.partitions() + "-");
    try (EmbeddedSearchStore store = EmbeddedSearchStore.start(work.resolve("store"), EmbeddedStores.settings(root));
        NodeCluster cluster = new NodeCluster(root, work, config.nodes(), config.replication(), store.url(),
            records -> List.of("--flowpipe.broker.partitions-count=" + config.partitions()));
        ZeebeClient client = ZeebeClient.newClientBuilder().grpcAddress(cluster.gateway(0)).usePlaintext()
            .defaultRequestTimeout(Duration.ofSeconds(30)).build()) {
      ClusterTopology.awaitLeaders(cluster.gateway(0), config.partitions(), Duration.ofMinutes(2));
      model.deploy(client);
      URI http = URI.create("http://127.0.0.1:" + cluster.node(0).httpPort());
      LoadResult warmUp = ThroughputRamp.warmUp(client, settings, model, http, started);
      if (warmUp != null) {
        System.out.println("warm-up: " + warmUp.summary());
      }
      List<ProcessHandle> nodes = new ArrayList<>();
      for (int id = 0; id < cluster.size(); id++) {
        nodes.add(ProcessHandle.of(cluster.node(id).pid()).orElseThrow());
      }
      ProcessHandle storeProcess = ProcessHandle.of(store.pid()).orElseThrow();
      List<Long> nodeCpuBefore = nodes.stream().map(CpuCost::cpuNanos).toList();
      long storeCpuBefore = CpuCost.cpuNanos(storeProcess);
      long rampStarted = System.nanoTime();
      List<URI> nodesHttp = new ArrayList<>();
      for (int id = 0; id < cluster.size(); id++) {
        nodesHttp.add(URI.create("http://127.0.0.1:" + cluster.node(id).httpPort()));
      }
      List<RampStep> steps = ThroughputRamp.ramp(client, settings, model, nodesHttp, started);
      double seconds = (System.nanoTime() - rampStarted) / 1e9;
      long completed = steps.stream().mapToLong(s -> s.result().total(LoadWindow::completed)).sum();

      Section result = new Section().figure("nodes", config.nodes()).figure("partitions", config.partitions())
          .figure("replication", config.replication());
      double highest = RampStep.highestCleanRate(steps);
      result.figure("highestCleanRatePerSecond", highest)
          .figure("highestCleanRatePerPartition", LoadResult.round(highest / config.partitions()), Unit.PER_SECOND);
      RampStep last = steps.getLast();
      String stoppedBecause = last.endsRamp() ? last.verdict() + " at " + last.rate() + " PI/s"
          : "time budget or max rate after " + last.rate() + " PI/s";
      result.text("stoppedBecause", stoppedBecause).figure("peakCompletedPerSecond", LoadResult.round(
          steps.stream().mapToDouble(RampStep::completedPerSecondLateInStep).max().orElse(0)));
      steps.stream().filter(s -> s.rate() == highest).findFirst().ifPresent(s -> result
          .figure("p99AtHighestCleanRateMillis", s.result().latency().getValueAtPercentile(99))
          .figure("maxLagAtHighestCleanRateMillis", s.result().maxLagAgeMillis())); // the largest of any node's
      result.figure("refusedByFlowControl", steps.stream().mapToLong(RampStep::refusedByFlowControl).sum()); // all nodes
      List<Double> nodeCores = new ArrayList<>();
      double nodesCpuMillis = 0;
      for (int id = 0; id < nodes.size(); id++) {
        double millis = (CpuCost.cpuNanos(nodes.get(id)) - nodeCpuBefore.get(id)) / 1e6;
        nodesCpuMillis += millis;
        nodeCores.add(LoadResult.round(millis / 1000 / seconds));
      }
      double storeCpuMillis = (CpuCost.cpuNanos(storeProcess) - storeCpuBefore) / 1e6;
      result.figures("coresPerNode", nodeCores, Unit.NONE)
          .figure("storeCores", LoadResult.round(storeCpuMillis / 1000 / seconds))
          .figure("completedInstances", completed)
          .figure("nodesCpuMillisPerInstance", LoadResult.round(nodesCpuMillis / Math.max(1, completed)), Unit.MILLIS)
          .figure("storeCpuMillisPerInstance", LoadResult.round(storeCpuMillis / Math.max(1, completed)), Unit.MILLIS)
          .sections("steps", steps.stream().map(s -> new Section().figure("rate", s.rate(), Unit.PER_SECOND)
              .text("verdict", s.verdict().toString())
              .figure("completedPerSecondLateInStep", LoadResult.round(s.completedPerSecondLateInStep()))
              .figure("rejectedShare", s.result().rejectedShare())
              .figure("refusedByFlowControl", s.refusedByFlowControl())).toList());
      System.out.printf(Locale.ROOT, "[%.0f s] %s: highest clean rate %.0f PI/s (%.1f per partition), %s; nodes %.2f"
              + " + store %.2f CPU ms per instance%n", (System.nanoTime() - started) / 1e9, config, highest,
          highest / config.partitions(), stoppedBecause, nodesCpuMillis / Math.max(1, completed),
          storeCpuMillis / Math.max(1, completed));
      return result;
    }
  }
}
