package dev.flowpipe.benchmarks.scenario.live;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import dev.flowpipe.benchmarks.load.LoadGenerator;
import dev.flowpipe.benchmarks.load.LoadModel;
import dev.flowpipe.benchmarks.load.LoadSettings;
import dev.flowpipe.benchmarks.report.Percentiles;
import dev.flowpipe.benchmarks.scenario.operations.OperationsScenario.LoadAverage;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * The live updates of issue 36, as an open page gets them (a push client of {@code GET /ui/live} that does what the
 * page does: on each event, one search for what it shows): on an idle node, how many events (so page reloads) a
 * minute brings; under a background load, the time from a probe instance's creation command to the push client's
 * search answering it (record to page), p50/p99. The probe process is a start and an end event: its instance is in
 * the read model as soon as its first records are exported.
 */
public final class LivePushScenario {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The settings as the report gives them. */
  public record Settings(int backgroundInstancesPerSecond, int probesPerSecond, int loadSeconds, int idleSeconds) {}

  public record Report(String scenario, Settings settings, long idleEvents, long idleSearchesPerMinute,
      Percentiles recordToPageMillis, long probesShown, long probesNotShownWithin10s, long probesRefusedByTheEngine,
      long eventsUnderLoad,
      double eventsPerSecondUnderLoad, List<LoadAverage> loadAverages) {}

  private LivePushScenario() {}

  public static Report run(Path root, int rate, int probesPerSecond, int loadSeconds, int idleSeconds)
      throws Exception {
    List<LoadAverage> loadAverages = new ArrayList<>(List.of(LoadAverage.now("start")));
    Path work = ScratchDirectories.create("bench-live");
    try (NodeProcess node = NodeProcess.start(root, work.resolve("node"), List.of());
        ZeebeClient client = ScenarioNodes.client(node)) {
      LoadModel model = LoadModel.builtIn();
      model.deploy(client);
      client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess("live-probe").startEvent()
          .endEvent().done(), "live-probe.bpmn").send().join();
      String base = "http://127.0.0.1:" + node.httpPort();
      Thread.sleep(5_000); // the deployments' records exported before the idle minute begins
      try (PushClient push = new PushClient(base)) {
        push.awaitOpen();
        long before = push.events.get();
        Thread.sleep(idleSeconds * 1000L);
        long idle = push.events.get() - before;
        long idleSearches = push.searches.get();
        loadAverages.add(LoadAverage.now("after the idle phase"));
        System.out.printf("idle: %d events, %d searches in %d s%n", idle, idleSearches, idleSeconds);

        Thread background = Thread.ofPlatform().name("background-load").start(() -> {
          try {
            new LoadGenerator(client, LoadSettings.defaults().withRate(rate).withDuration(Duration.ofHours(1)),
                model, null, line -> { }, 0).run();
          } catch (InterruptedException e) {
            // the probes are done: the background load ends with them
          }
        });
        Thread.sleep(10_000); // the load running steadily before the first probe
        long eventsBefore = push.events.get();
        long loadStart = System.nanoTime();
        long interval = 1_000_000_000L / probesPerSecond;
        long refused = 0;
        for (long next = System.nanoTime(), end = next + loadSeconds * 1_000_000_000L; next < end; next += interval) {
          long wait = next - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
          long sent = System.nanoTime();
          try {
            long key = client.newCreateInstanceCommand().bpmnProcessId("live-probe").latestVersion().send().join()
                .getProcessInstanceKey();
            push.expect(key, sent);
          } catch (RuntimeException e) {
            // the engine refused it (back-pressure under the background load): no probe, counted
            refused++;
          }
        }
        long eventsUnderLoad = push.events.get() - eventsBefore;
        double loadSecondsTaken = (System.nanoTime() - loadStart) / 1e9;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!push.pending.isEmpty() && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
        loadAverages.add(LoadAverage.now("after the probes (background load running)"));
        background.interrupt();
        background.join(60_000);
        return new Report("live-push", new Settings(rate, probesPerSecond, loadSeconds, idleSeconds), idle,
            Math.round(idleSearches * 60.0 / idleSeconds), Percentiles.of(push.latencies),
            push.latencies.getTotalCount(), push.pending.size(), refused, eventsUnderLoad,
            eventsUnderLoad / loadSecondsTaken, loadAverages);
      }
    }
  }

  /** The page's part: the stream, and on each event one search for the probes it waits to see. */
  private static final class PushClient implements AutoCloseable {
    final AtomicLong events = new AtomicLong();
    final AtomicLong searches = new AtomicLong();
    final Map<Long, Long> pending = new ConcurrentHashMap<>();
    final Histogram latencies = new Histogram(60_000, 3);
    private final HttpClient http = HttpClient.newHttpClient();
    private final String base;
    private volatile boolean open;
    private volatile boolean first = true;

    PushClient(String base) {
      this.base = base;
      Thread.ofPlatform().daemon().name("push-client").start(this::read);
    }

    void awaitOpen() throws InterruptedException {
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (!open && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      if (!open) {
        throw new IllegalStateException("the live stream did not open in 30 s");
      }
    }

    void expect(long key, long sentNanos) {
      pending.put(key, sentNanos);
    }

    private void read() {
      try {
        HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(URI.create(base + "/ui/live"))
            .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofInputStream());
        BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
        open = true;
        String line;
        boolean positions = false;
        while ((line = lines.readLine()) != null) {
          if (line.equals("event:positions")) {
            positions = true;
          } else if (line.isEmpty() && positions) {
            positions = false;
            if (first) {
              first = false; // the baseline: where the read model was when the stream opened
              continue;
            }
            events.incrementAndGet();
            refetch();
          }
        }
      } catch (IOException e) {
        // closed
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** What the page does on an event: one search; here for the probes not seen yet. */
    private void refetch() throws IOException, InterruptedException {
      searches.incrementAndGet();
      if (pending.isEmpty()) {
        return;
      }
      String keys = pending.keySet().stream().map(k -> "\"" + k + "\"").collect(Collectors.joining(","));
      HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(base + "/v2/process-instances/search"))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"filter\": {\"processInstanceKey\": {\"$in\": [" + keys
              + "]}}, \"page\": {\"limit\": 1000}}")).build(), HttpResponse.BodyHandlers.ofString());
      long now = System.nanoTime();
      for (JsonNode item : JSON.readTree(answer.body()).path("items")) {
        Long sent = pending.remove(item.path("processInstanceKey").asLong());
        if (sent != null) {
          latencies.recordValue(Math.min(60_000, (now - sent) / 1_000_000));
        }
      }
    }

    @Override
    public void close() {
      http.shutdownNow();
    }
  }
}
