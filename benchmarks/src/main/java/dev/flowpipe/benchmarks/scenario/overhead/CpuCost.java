package dev.flowpipe.benchmarks.scenario.overhead;

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

  public static Map<String, Object> run(Path root, int rate, int warmUpSeconds, int seconds, List<String> selected,
      int rounds) throws Exception {
    Map<String, List<String>> known = Overhead.exporterModes(selected);
    Map<String, List<Map<String, Object>>> runs = new LinkedHashMap<>();
    for (int round = 1; round <= rounds; round++) {
      for (String mode : selected) {
        List<String> arguments = new ArrayList<>(known.get(mode));
        arguments.add("--flowpipe.flow-control.enabled=false");
        System.out.printf("round %d/%d, %s: starting node%n", round, rounds, mode);
        try (NodeProcess node = NodeProcess.start(root, ScratchDirectories.create("bench-cpu-" + mode), arguments,
            Overhead.extraClasspath(root, List.of(mode)));
            ZeebeClient client = ScenarioNodes.client(node)) {
          ScenarioNodes.deploy(client);
          Map<String, Object> result = measure(node, client, rate, warmUpSeconds, seconds);
          result.put("flushes", PrometheusText.flushStatistics(node.text("/actuator/prometheus")));
          result.put("documentsInStore", Overhead.documentsWritten(node, mode));
          runs.computeIfAbsent(mode, m -> new ArrayList<>()).add(result);
          System.out.printf("round %d/%d, %s: %s%n", round, rounds, mode, result);
        }
      }
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("scenario", "CPU cost at a fixed load: CPU time of the node JVM and of its embedded store JVM per "
        + "completed one-service-task instance, " + rate + " PI/s, flow control off, fresh node per run");
    report.put("rate", rate);
    report.put("warmUpSeconds", warmUpSeconds);
    report.put("measureSeconds", seconds);
    report.put("runs", runs);
    Map<String, Object> means = new LinkedHashMap<>();
    runs.forEach((mode, results) -> {
      Map<String, Object> mean = new LinkedHashMap<>();
      for (String key : List.of("nodeCpuMillisPerInstance", "storeCpuMillisPerInstance", "totalCpuMillisPerInstance",
          "completedPerSecond")) {
        mean.put(key, round2(results.stream().mapToDouble(r -> (Double) r.get(key)).average().orElse(Double.NaN)));
      }
      means.put(mode, mean);
    });
    report.put("means", means);
    if (means.containsKey("noop")) {
      double noop = (Double) ((Map<?, ?>) means.get("noop")).get("totalCpuMillisPerInstance");
      Map<String, Object> ratios = new LinkedHashMap<>();
      means.forEach((mode, mean) -> ratios.put(mode,
          round2(noop / (Double) ((Map<?, ?>) mean).get("totalCpuMillisPerInstance"))));
      // on a CPU-bound machine, throughput scales with the inverse of the CPU time per instance
      report.put("noopCpuOverModeCpu", ratios);
    }
    return report;
  }

  /** A fixed-rate load; CPU time of the node and of the processes it started (the store) over the measured window. */
  private static Map<String, Object> measure(NodeProcess node, ZeebeClient client, int rate, int warmUpSeconds,
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
      List<Map<String, Object>> windows = new ArrayList<>();
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
        windows.add(Map.of("endSecond", second,
            "nodeCores", round2((nodeNow - nodeAt) / 1e9 / windowSeconds),
            "storeCores", round2((storeNow - storeAt) / 1e9 / windowSeconds),
            "completedPerSecond", round2((completedNow - completedAt) / windowSeconds)));
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
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("completedPerSecond", round2(instances / elapsed));
      result.put("nodeCores", round2(nodeCpu / 1000 / elapsed));
      result.put("storeCores", round2(storeCpu / 1000 / elapsed));
      result.put("nodeCpuMillisPerInstance", round2(nodeCpu / instances));
      result.put("storeCpuMillisPerInstance", round2(storeCpu / instances));
      result.put("totalCpuMillisPerInstance", round2((nodeCpu + storeCpu) / instances));
      result.put("windows", windows);
      return result;
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
