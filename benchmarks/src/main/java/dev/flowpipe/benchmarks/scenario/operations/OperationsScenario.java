package dev.flowpipe.benchmarks.scenario.operations;

import dev.flowpipe.benchmarks.report.Percentiles;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.testsupport.StoreProxy;
import dev.flowpipe.systemtests.EmbeddedStores;
import dev.flowpipe.testsupport.CommandOutcome;
import dev.flowpipe.benchmarks.load.LoadSettings;
import dev.flowpipe.benchmarks.load.LoadModel;
import dev.flowpipe.benchmarks.load.LoadGenerator;
import dev.flowpipe.benchmarks.load.LoadWindow;
import dev.flowpipe.benchmarks.load.LoadResult;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.builder.AbstractFlowNodeBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

/**
 * What the web app's operations give a user (issue 23's figures), on node processes started as a user starts them,
 * with basic authentication and a user with the write role: the store requests of one refresh of the dashboard and the
 * process page, now and the old way (a node whose store is behind a counting proxy); the time from an operation's
 * answer to its effect in the UI's next read, with and without read-your-writes (modification and migration among the
 * kinds since issue 35); a batch cancellation's and a batch modification's throughput and their effect on a background
 * load's latency (a second node, on its embedded store, no proxy in the way).
 */
public final class OperationsScenario {

  private static final String USER = "operator";

  /** The load average ({@code /proc/loadavg}: 1, 5, 15 minutes) at a moment of the run. */
  public record LoadAverage(String moment, String loadAverage) {
    public static LoadAverage now(String moment) throws IOException {
      String text = Files.readString(Path.of("/proc/loadavg")).strip();
      System.out.println("load average " + moment + ": " + text);
      return new LoadAverage(moment, text);
    }
  }

  /** The background load's latency in one phase of the batch part. */
  public record LoadLatency(String phase, int seconds, Percentiles executionLatencyMillis, long perSecondP99Median,
      long perSecondP99Max, double completedPerSecond) {}

  /** The settings as the report gives them. */
  public record Described(int operationsPerKindAndMode, long pollIntervalMillis, int usersAtOnce,
      int backgroundInstancesPerSecond, int batchInstances, long loadPhaseSeconds, int dashboardProcesses,
      int processPageElements) {}

  public record Report(String scenario, String node, Described settings, List<RefreshRequests.Count> refreshes,
      long nodeOwnStoreRequestsIn5sIdle, List<OperationVisibility.KindResult> visibility,
      List<BatchThroughput.Result> batches,
      List<LoadLatency> backgroundLoad, List<LoadAverage> loadAverages) {}

  private OperationsScenario() {}

  public static Report run(Path root, List<String> args) throws Exception {
    OperationsSettings settings = OperationsSettings.parse(args);
    String password = UUID.randomUUID().toString();
    List<String> nodeArgs = List.of("--flowpipe.webapp.security.basic-auth=true",
        "--flowpipe.webapp.security.users[0].username=" + USER,
        "--flowpipe.webapp.security.users[0].password=" + password,
        "--flowpipe.webapp.security.users[0].roles=write");
    List<LoadAverage> loadAverages = new ArrayList<>(List.of(LoadAverage.now("start")));
    Path work = ScratchDirectories.create("bench-operations");
    List<RefreshRequests.Count> refreshes;
    long idle;
    try (EmbeddedSearchStore opensearch = EmbeddedSearchStore.start(work.resolve("store"),
            EmbeddedStores.settings(root));
        StoreProxy proxy = new StoreProxy(opensearch.url(), null, null);
        NodeProcess node = NodeProcess.start(root, work.resolve("count-node"), concat(nodeArgs,
            "--flowpipe.store.url=" + proxy.url()));
        ZeebeClient client = ScenarioNodes.client(node)) {
      WebappClient webapp = new WebappClient(node.httpPort(), USER, password);
      long definitionKey = deployPages(client, webapp, settings);
      proxy.resetRequestCounts();
      Thread.sleep(5_000);
      idle = proxy.requestCounts().entrySet().stream().filter(e -> !e.getKey().endsWith(" _bulk"))
          .mapToLong(Map.Entry::getValue).sum();
      System.out.println("the node's own store requests in 5 s idle (bulks left out): " + proxy.requestCounts());
      refreshes = countRefreshes(new RefreshRequests(webapp, proxy), settings, definitionKey);
      loadAverages.add(LoadAverage.now("after the request counts"));
    }
    List<OperationVisibility.KindResult> visibility;
    List<BatchThroughput.Result> batches = new ArrayList<>();
    List<LoadLatency> latencies = new ArrayList<>();
    try (NodeProcess node = NodeProcess.start(root, work.resolve("node"), nodeArgs);
        ZeebeClient client = ScenarioNodes.client(node)) {
      WebappClient webapp = new WebappClient(node.httpPort(), USER, password);
      LoadModel model = LoadModel.builtIn();
      model.deploy(client);
      LoadSettings load = LoadSettings.defaults().withRate(settings.backgroundRate());
      OperationVisibility.Targets targets =
          OperationVisibility.prepare(client, webapp, 2 * settings.operationsPerMode());
      for (BatchThroughput.Kind kind : BatchThroughput.Kind.values()) {
        BatchThroughput.prepare(client, webapp, kind, settings.batchInstances());
      }
      Thread background = Thread.ofPlatform().name("background-load").start(() -> {
        try {
          new LoadGenerator(client, load.withDuration(Duration.ofHours(1)), model, null, line -> { }, 0).run();
        } catch (InterruptedException e) {
          // the operations are done: the background load ends with them
        }
      });
      Thread.sleep(10_000); // the load running steadily before the first operation
      loadAverages.add(LoadAverage.now("operations begin (background load running)"));
      visibility = new OperationVisibility(webapp, settings.pollInterval(), settings.users()).run(targets);
      loadAverages.add(LoadAverage.now("operations end"));
      background.interrupt();
      background.join(60_000);

      LoadResult alone = new LoadGenerator(client, load.withDuration(settings.loadPhase()), model, null,
          System.out::println, 10).run();
      latencies.add(latency("background load alone", alone, 0, alone.loadSeconds()));
      loadAverages.add(LoadAverage.now("after the load alone"));
      for (BatchThroughput.Kind kind : BatchThroughput.Kind.values()) {
        batches.add(withBatch(client, webapp, model, load.withDuration(settings.loadPhase()), kind, latencies));
        loadAverages.add(LoadAverage.now("after the batch " + kind));
      }
    }
    Report report = new Report("operations: issue 23's figures on node processes with basic auth and a write user",
        "two fresh nodes started by the harness (own JVMs, embedded OpenSearch): for the counts behind a counting "
            + "proxy (external store URL), for the rest on its embedded store",
        describe(settings), refreshes, idle, visibility, batches, latencies, loadAverages);
    OperationsPage.write(report, settings, root.resolve("benchmarks/results/operations.html"));
    return report;
  }

  /**
   * A phase of the background load with a batch of {@code kind} asked for 2 s into it; the load's latency over the
   * batch's own seconds and over the whole phase go to {@code latencies}.
   */
  private static BatchThroughput.Result withBatch(ZeebeClient client, WebappClient webapp, LoadModel model,
      LoadSettings phase, BatchThroughput.Kind kind, List<LoadLatency> latencies) throws InterruptedException {
    long loadStart = System.currentTimeMillis();
    BatchThroughput.Result[] done = new BatchThroughput.Result[1];
    Thread batchRun = Thread.ofPlatform().name("batch").start(() -> {
      try {
        Thread.sleep(2_000);
        done[0] = BatchThroughput.run(webapp, kind);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    LoadResult withBatch = new LoadGenerator(client, phase, model, null, System.out::println, 10).run();
    batchRun.join();
    BatchThroughput.Result batch = done[0];
    if (batch == null) {
      throw new IllegalStateException("the batch " + kind + " did not end; see the output above");
    }
    int from = (int) ((batch.startedAtMillis() - loadStart) / 1000);
    int to = (int) Math.ceil((batch.endedAtMillis() - loadStart) / 1000.0);
    latencies.add(latency("background load during the batch " + kind + " (its seconds only)", withBatch, from, to));
    latencies.add(latency("background load, whole phase with the batch " + kind, withBatch, 0,
        withBatch.loadSeconds()));
    return batch;
  }

  private static List<String> concat(List<String> args, String more) {
    List<String> all = new ArrayList<>(args);
    all.add(more);
    return all;
  }

  /**
   * The dashboard's processes (each start, tasks, end; a few instances waiting at the first task) and the process
   * page's definition key (the first process).
   */
  private static long deployPages(ZeebeClient client, WebappClient webapp, OperationsSettings settings)
      throws InterruptedException {
    LoadModel.builtIn().deploy(client); // retries until the gateway knows the partition
    long first = 0;
    for (int p = 1; p <= settings.dashboardProcesses(); p++) {
      AbstractFlowNodeBuilder<?, ?> chain = Bpmn.createExecutableProcess("page-" + p).startEvent("start");
      for (int t = 1; t <= settings.processElements() - 2; t++) {
        chain = chain.serviceTask("task-" + t, b -> b.zeebeJobType("page-work"));
      }
      var model = chain.endEvent("end").done();
      String id = "page-" + p;
      long key = CommandOutcome.untilAccepted(() -> client.newDeployResourceCommand().addProcessModel(model,
          id + ".bpmn").send().join()).getProcesses().getFirst().getProcessDefinitionKey();
      first = p == 1 ? key : first;
      for (int i = 0; i < 3; i++) {
        CommandOutcome.untilAccepted(() -> client.newCreateInstanceCommand().bpmnProcessId(id).latestVersion().send()
            .join());
      }
    }
    long expected = 3L * settings.dashboardProcesses();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (webapp.expect(200, "POST", "/v2/process-instances/search", "{\"filter\": {\"processDefinitionId\": "
        + "{\"$like\": \"page-*\"}}, \"page\": {\"limit\": 0}}").json().path("page").path("totalItems").asLong()
        < expected) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the read model did not show " + expected + " page-* instances within 60 s");
      }
      Thread.sleep(200);
    }
    return first;
  }

  private static List<RefreshRequests.Count> countRefreshes(RefreshRequests counter, OperationsSettings settings,
      long definitionKey) {
    List<String> processes = IntStream.rangeClosed(1, settings.dashboardProcesses()).mapToObj(p -> "page-" + p)
        .toList();
    List<String> elements = new ArrayList<>(List.of("start"));
    IntStream.rangeClosed(1, settings.processElements() - 2).forEach(t -> elements.add("task-" + t));
    elements.add("end");
    double now = UiPageCalls.NEW_REFRESH_SECONDS;
    double old = UiPageCalls.OLD_REFRESH_SECONDS;
    return List.of(
        counter.count("dashboard, before (" + processes.size() + " processes)", old,
            () -> UiPageCalls.dashboardOld(processes)),
        counter.count("dashboard, now", now, UiPageCalls::dashboardNow),
        counter.count("process page, before (" + elements.size() + " elements)", old,
            () -> UiPageCalls.processOld(definitionKey, elements)),
        counter.count("process page, now", now, () -> UiPageCalls.processNow(definitionKey)),
        counter.count("header's importer badge (/actuator/health), now", now, UiPageCalls::headerNow));
  }

  /**
   * The load's latency over windows {@code [from, to)}: per-second p99s, and the histogram of every instance where
   * the windows are the whole phase (null otherwise: the histogram covers the whole phase).
   */
  private static LoadLatency latency(String phase, LoadResult result, int from, int to) {
    boolean whole = from == 0 && to >= result.loadSeconds();
    List<LoadWindow> windows = result.windows().subList(Math.max(0, from), Math.min(to, result.windows().size()));
    List<Long> p99s = windows.stream().map(LoadWindow::latencyP99).filter(v -> v >= 0).sorted().toList();
    return new LoadLatency(phase, windows.size(), whole ? Percentiles.of(result.latency()) : null,
        p99s.isEmpty() ? -1 : p99s.get(p99s.size() / 2), p99s.isEmpty() ? -1 : p99s.getLast(),
        windows.stream().mapToLong(LoadWindow::completed).sum() / (double) Math.max(1, windows.size()));
  }

  private static Described describe(OperationsSettings s) {
    return new Described(s.operationsPerMode(), s.pollInterval().toMillis(), s.users(), s.backgroundRate(),
        s.batchInstances(), s.loadPhase().toSeconds(), s.dashboardProcesses(), s.processElements());
  }
}
