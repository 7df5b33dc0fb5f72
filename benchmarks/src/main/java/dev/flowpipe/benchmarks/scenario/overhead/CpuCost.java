package dev.flowpipe.benchmarks.scenario.overhead;

import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.benchmarks.report.Report;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.worker.JobWorker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.benchmarks.prometheus.PrometheusText;
import dev.flowpipe.benchmarks.load.Saturation;
import dev.flowpipe.benchmarks.load.Availability;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;

/**
 * What the exporter costs in CPU time rather than in throughput: at a fixed load well below saturation, the CPU seconds
 * the node's JVM and its store's JVM use per completed instance, in alternating runs of each mode. Throughput at
 * saturation on two shared cores swings by a factor of two between runs; CPU time per instance at a fixed rate is far
 * steadier, and on a CPU-bound machine it is what the throughput ratio follows.
 */
public final class CpuCost {

  private CpuCost() {}

  /** One run's CPU cost over the measured window, with its 10 s windows and the exporter's flushes. */
  public record Run(double completedPerSecond, double nodeCores, double storeCores, double nodeCpuMillisPerInstance,
      double storeCpuMillisPerInstance, double totalCpuMillisPerInstance, List<Window> windows,
      Map<String, String> flushes, long documentsInStore) {

    Run with(Map<String, String> flushes, long documentsInStore) {
      return new Run(completedPerSecond, nodeCores, storeCores, nodeCpuMillisPerInstance, storeCpuMillisPerInstance,
          totalCpuMillisPerInstance, windows, flushes, documentsInStore);
    }
  }

  /** Ten seconds of a run. */
  public record Window(int endSecond, double nodeCores, double storeCores, double completedPerSecond) {}

  /** A mode's mean over its rounds. */
  public record Mean(double nodeCpuMillisPerInstance, double storeCpuMillisPerInstance,
      double totalCpuMillisPerInstance, double completedPerSecond) {}

  public static Report run(Path root, int rate, int warmUpSeconds, int seconds, List<String> selected,
      int rounds) throws Exception {
    Map<String, List<String>> known = Overhead.exporterModes(selected);
    Map<String, List<Run>> runs = new LinkedHashMap<>();
    for (int round = 1; round <= rounds; round++) {
      for (String mode : selected) {
        List<String> arguments = new ArrayList<>(known.get(mode));
        arguments.add("--flowpipe.flow-control.enabled=false");
        System.out.printf("round %d/%d, %s: starting node%n", round, rounds, mode);
        try (NodeProcess node = NodeProcess.start(root, ScratchDirectories.create("bench-cpu-" + mode), arguments,
            Overhead.extraClasspath(root, List.of(mode)));
            ZeebeClient client = ScenarioNodes.client(node)) {
          ScenarioNodes.deploy(client);
          Run result = measure(node, client, rate, warmUpSeconds, seconds).with(
              PrometheusText.flushStatistics(node.text("/actuator/prometheus")), Overhead.documentsWritten(node, mode));
          runs.computeIfAbsent(mode, m -> new ArrayList<>()).add(result);
          System.out.printf("round %d/%d, %s: %s%n", round, rounds, mode, result);
        }
      }
    }
    Report report = Report.describing("CPU cost at a fixed load: CPU time of the node JVM and of its embedded store JVM per "
        + "completed one-service-task instance, " + rate + " PI/s, flow control off, fresh node per run");
    report.body().figure("rate", rate, Unit.PER_SECOND).figure("warmUpSeconds", warmUpSeconds)
        .figure("measureSeconds", seconds).typed("runs", runs);
    Map<String, Mean> means = new LinkedHashMap<>();
    runs.forEach((mode, results) -> means.put(mode, new Mean(mean(results, Run::nodeCpuMillisPerInstance),
        mean(results, Run::storeCpuMillisPerInstance), mean(results, Run::totalCpuMillisPerInstance),
        mean(results, Run::completedPerSecond))));
    report.body().typed("means", means);
    if (means.containsKey("noop")) {
      double noop = means.get("noop").totalCpuMillisPerInstance();
      Map<String, Double> ratios = new LinkedHashMap<>();
      means.forEach((mode, mean) -> ratios.put(mode, round2(noop / mean.totalCpuMillisPerInstance())));
      // on a CPU-bound machine, throughput scales with the inverse of the CPU time per instance
      report.body().typed("noopCpuOverModeCpu", ratios);
    }
    return report;
  }

  /** A fixed-rate load; CPU time of the node and of the processes it started (the store) over the measured window. */
  private static double mean(List<Run> runs, java.util.function.ToDoubleFunction<Run> figure) {
    return round2(runs.stream().mapToDouble(figure).average().orElse(Double.NaN));
  }

  private static Run measure(NodeProcess node, ZeebeClient client, int rate, int warmUpSeconds,
      int seconds) throws InterruptedException {
    AtomicLong completed = new AtomicLong();
    Thread load = Thread.ofPlatform().daemon().start(() -> Availability.backgroundLoad(client, rate));
    try (JobWorker worker = client.newWorker().jobType(Saturation.JOB_TYPE)
        .handler((jobs, job) -> jobs.newCompleteCommand(job.getKey()).send()
            .whenComplete((ok, error) -> completed.incrementAndGet()))
        .maxJobsActive(256).pollInterval(Duration.ofMillis(10)).streamEnabled(true).open()) {
      Thread.sleep(warmUpSeconds * 1000L);
      ProcessHandle process = ProcessHandle.of(node.pid()).orElseThrow();
      long nodeBefore = cpuNanos(process);
      long storeBefore = descendantsCpuNanos(process);
      long completedBefore = completed.get();
      long start = System.nanoTime();
      // 10 s windows show whether the cost still falls (JIT compilation, mostly the store's) or has settled
      List<Window> windows = new ArrayList<>();
      long windowStart = start;
      long nodeAt = nodeBefore;
      long storeAt = storeBefore;
      long completedAt = completedBefore;
      for (int second = 10; second <= seconds; second += 10) {
        TimeUnit.NANOSECONDS.sleep(Math.max(0, start + second * 1_000_000_000L - System.nanoTime()));
        long now = System.nanoTime();
        long nodeNow = cpuNanos(process);
        long storeNow = descendantsCpuNanos(process);
        long completedNow = completed.get();
        double windowSeconds = (now - windowStart) / 1e9;
        windows.add(new Window(second, round2((nodeNow - nodeAt) / 1e9 / windowSeconds),
            round2((storeNow - storeAt) / 1e9 / windowSeconds), round2((completedNow - completedAt) / windowSeconds)));
        windowStart = now;
        nodeAt = nodeNow;
        storeAt = storeNow;
        completedAt = completedNow;
      }
      TimeUnit.NANOSECONDS.sleep(Math.max(0, start + seconds * 1_000_000_000L - System.nanoTime()));
      double elapsed = (System.nanoTime() - start) / 1e9;
      long instances = completed.get() - completedBefore;
      double nodeCpu = (cpuNanos(process) - nodeBefore) / 1e6;
      double storeCpu = (descendantsCpuNanos(process) - storeBefore) / 1e6;
      return new Run(round2(instances / elapsed), round2(nodeCpu / 1000 / elapsed), round2(storeCpu / 1000 / elapsed),
          round2(nodeCpu / instances), round2(storeCpu / instances), round2((nodeCpu + storeCpu) / instances),
          windows, Map.of(), 0);
    } finally {
      load.interrupt();
    }
  }

  public static long cpuNanos(ProcessHandle process) {
    return process.info().totalCpuDuration().map(Duration::toNanos)
        .orElseThrow(() -> new IllegalStateException("no CPU time readable for process " + process.pid()));
  }

  private static long descendantsCpuNanos(ProcessHandle process) {
    return process.descendants().mapToLong(p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L)).sum();
  }

  private static double round2(double value) {
    return Double.isFinite(value) ? Math.round(value * 100) / 100.0 : value;
  }
}
