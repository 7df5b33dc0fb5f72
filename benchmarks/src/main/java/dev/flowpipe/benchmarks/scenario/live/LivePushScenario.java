package dev.flowpipe.benchmarks.scenario.live;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import dev.flowpipe.benchmarks.load.LoadGenerator;
import dev.flowpipe.benchmarks.load.LoadModel;
import dev.flowpipe.benchmarks.load.LoadSettings;
import dev.flowpipe.benchmarks.prometheus.ExporterLag;
import dev.flowpipe.benchmarks.report.Percentiles;
import dev.flowpipe.benchmarks.scenario.operations.OperationsScenario.LoadAverage;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.PrometheusSamples;
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
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * The live updates of issue 36, as an open page gets them (a push client of {@code GET /ui/live} that does what the
 * page does: on an event, one search for what it shows; events that come during a search make one more search after
 * it, as {@code app.js} reloads): on an idle node, how many events (so page reloads) a minute brings; under a
 * background load, the time from a probe instance's creation command to the push client's search answering it
 * (command to page), p50/p99, and where it goes: command to the engine's record (the instance's start date), record to
 * the web app's poll reading the export marks past it (the exporter's buffer, bulk and mark, and the wait for the
 * next poll), that read to searchable (the web app's refresh), searchable to the event at the client, and the event to
 * the search's answer. The probe process is a start and an end event: its instance is in the read model as soon as
 * its first records are exported. All times are this machine's clock, which the node shares.
 */
public final class LivePushScenario {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The settings as the report gives them. */
  public record Settings(int backgroundInstancesPerSecond, int probesPerSecond, int loadSeconds, int idleSeconds,
      int streams, boolean liveRefresh) {}

  public record Report(String scenario, Settings settings, long idleEvents, long idleSearchesPerMinute,
      Percentiles commandToPageMillis, Percentiles recordToPageMillis, Breakdown breakdownMillis, long probesShown,
      long probesNotShownWithin10s, long probesRefusedByTheEngine, long eventsUnderLoad,
      double eventsPerSecondUnderLoad, long searchesUnderLoad, Percentiles exporterLagAgeMillis,
      Percentiles searchableToEventAtEveryStreamMillis, LiveStore liveStoreUnderLoad, List<LoadAverage> loadAverages) {}

  /**
   * What the web app's live poller asked of the store during the probes, from its own meters
   * ({@code flowpipe_live_*} at {@code /actuator/prometheus}), with {@code streams} streams open.
   */
  public record LiveStore(long streamsOpen, long polls, long storeRequests, double storeRequestsPerMinute,
      double storeRequestsPerPoll) {}

  /** Where the time of the probes shown went, segment by segment (each segment's own percentiles). */
  public record Breakdown(Percentiles commandToRecord, Percentiles recordToPollRead, Percentiles pollReadToSearchable,
      Percentiles searchableToEventAtClient, Percentiles eventToSearchAnswered) {}

  private LivePushScenario() {}

  /**
   * @param streams the open pages: the push client and {@code streams - 1} listeners that only take the events (their
   *     delivery is measured; they search nothing, so the store's work beside the page's searches shows)
   * @param liveRefresh the node's {@code flowpipe.webapp.live.refresh}
   */
  public static Report run(Path root, int rate, int probesPerSecond, int loadSeconds, int idleSeconds, int streams,
      boolean liveRefresh) throws Exception {
    List<LoadAverage> loadAverages = new ArrayList<>(List.of(LoadAverage.now("start")));
    Path work = ScratchDirectories.create("bench-live");
    try (NodeProcess node = NodeProcess.start(root, work.resolve("node"),
        List.of("--flowpipe.webapp.live.refresh=" + liveRefresh));
        ZeebeClient client = ScenarioNodes.client(node)) {
      LoadModel model = LoadModel.builtIn();
      model.deploy(client);
      client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess("live-probe").startEvent()
          .endEvent().done(), "live-probe.bpmn").send().join();
      String base = "http://127.0.0.1:" + node.httpPort();
      Thread.sleep(5_000); // the deployments' records exported before the idle minute begins
      Histogram delivery = new Histogram(60_000, 3);
      List<Listener> listeners = new ArrayList<>();
      try (PushClient push = new PushClient(base, delivery)) {
        push.awaitOpen();
        for (int i = 1; i < streams; i++) {
          listeners.add(new Listener(base, delivery));
        }
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
        Histogram lagAges = new Histogram(600_000, 3);
        ExporterLag.Reader lags = new ExporterLag.Reader(URI.create(base));
        Thread lagSampler = Thread.ofPlatform().daemon().name("lag-sampler").start(() -> {
          while (!Thread.currentThread().isInterrupted()) {
            ExporterLag lag = lags.read();
            if (lag != null) {
              lagAges.recordValue(Math.min(600_000, lag.ageMillis()));
            }
            try {
              Thread.sleep(500);
            } catch (InterruptedException e) {
              return;
            }
          }
        });
        long eventsBefore = push.events.get();
        long searchesBefore = push.searches.get();
        PrometheusSamples metricsBefore = metrics(base);
        long metricsStart = System.nanoTime();
        synchronized (delivery) {
          delivery.reset(); // the idle phase's and the warm-up's events left out
        }
        long loadStart = System.nanoTime();
        long interval = 1_000_000_000L / probesPerSecond;
        long refused = 0;
        for (long next = System.nanoTime(), end = next + loadSeconds * 1_000_000_000L; next < end; next += interval) {
          long wait = next - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
          long sent = System.currentTimeMillis();
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
        long searchesUnderLoad = push.searches.get() - searchesBefore;
        PrometheusSamples metricsAfter = metrics(base);
        double metricsMinutes = (System.nanoTime() - metricsStart) / 60e9;
        long polls = Math.round(metricsAfter.sum("flowpipe_live_polls_total")
            - metricsBefore.sum("flowpipe_live_polls_total"));
        long storeRequests = Math.round(metricsAfter.sum("flowpipe_live_store_requests_total")
            - metricsBefore.sum("flowpipe_live_store_requests_total"));
        LiveStore liveStore = new LiveStore(Math.round(metricsAfter.sum("flowpipe_live_streams")), polls,
            storeRequests, storeRequests / metricsMinutes, polls == 0 ? 0 : (double) storeRequests / polls);
        Percentiles deliveryEverywhere;
        synchronized (delivery) {
          deliveryEverywhere = Percentiles.of(delivery);
        }
        double loadSecondsTaken = (System.nanoTime() - loadStart) / 1e9;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!push.pending.isEmpty() && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
        loadAverages.add(LoadAverage.now("after the probes (background load running)"));
        lagSampler.interrupt();
        listeners.forEach(Listener::close);
        background.interrupt();
        background.join(60_000);
        return new Report("live-push", new Settings(rate, probesPerSecond, loadSeconds, idleSeconds, streams,
            liveRefresh), idle,
            Math.round(idleSearches * 60.0 / idleSeconds), Percentiles.of(push.commandToPage),
            Percentiles.of(push.recordToPage), push.breakdown(), push.commandToPage.getTotalCount(),
            push.pending.size(), refused, eventsUnderLoad, eventsUnderLoad / loadSecondsTaken, searchesUnderLoad,
            Percentiles.of(lagAges), deliveryEverywhere, liveStore, loadAverages);
      }
    }
  }

  private static PrometheusSamples metrics(String base) throws IOException, InterruptedException {
    try (HttpClient http = HttpClient.newHttpClient()) {
      return PrometheusSamples.parse(http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/prometheus"))
          .build(), HttpResponse.BodyHandlers.ofString()).body());
    }
  }

  /** Reads a stream's {@code positions} events; for each, {@code onEvent} gets its data and when it arrived. */
  private static void readEvents(HttpClient http, String base, Runnable onOpen, EventHandler onEvent) {
    try {
      HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(URI.create(base + "/ui/live"))
          .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofInputStream());
      BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
      onOpen.run();
      String line;
      boolean positions = false;
      boolean first = true;
      String data = "{}";
      while ((line = lines.readLine()) != null) {
        if (line.equals("event:positions")) {
          positions = true;
        } else if (line.startsWith("data:")) {
          data = line.substring("data:".length());
        } else if (line.isEmpty() && positions) {
          positions = false;
          long received = System.currentTimeMillis();
          if (first) {
            first = false; // the baseline: where the read model was when the stream opened
            continue;
          }
          onEvent.event(JSON.readTree(data), received);
        }
      }
    } catch (IOException e) {
      // closed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private interface EventHandler {
    void event(JsonNode data, long receivedMillis) throws IOException;
  }

  /** Another open page: takes the events, records how long each took from searchable to here, searches nothing. */
  private static final class Listener implements AutoCloseable {
    private final HttpClient http = HttpClient.newHttpClient();

    Listener(String base, Histogram delivery) {
      Thread.ofPlatform().daemon().name("listener").start(() -> readEvents(http, base, () -> { },
          (data, received) -> recordDelivery(delivery, data, received)));
    }

    @Override
    public void close() {
      http.shutdownNow();
    }
  }

  private static void recordDelivery(Histogram delivery, JsonNode data, long received) {
    if (data.has("searchable")) {
      synchronized (delivery) {
        delivery.recordValue(Math.max(0, Math.min(60_000, received - data.path("searchable").asLong())));
      }
    }
  }

  /** An event as the client got it: the web app's times in its data, and when it arrived. */
  private record Event(long pollRead, long searchable, long received) {}

  /**
   * The page's part: a reader of the stream, and a searcher that, after an event, runs one search for the probes it
   * waits to see; events during a search make one search after it (the page's {@code every()} does the same).
   */
  private static final class PushClient implements AutoCloseable {
    final AtomicLong events = new AtomicLong();
    final AtomicLong searches = new AtomicLong();
    final Map<Long, Long> pending = new ConcurrentHashMap<>();
    final Histogram commandToPage = new Histogram(60_000, 3);
    final Histogram recordToPage = new Histogram(60_000, 3);
    final Histogram commandToRecord = new Histogram(60_000, 3);
    final Histogram recordToPollRead = new Histogram(60_000, 3);
    final Histogram pollReadToSearchable = new Histogram(60_000, 3);
    final Histogram searchableToEvent = new Histogram(60_000, 3);
    final Histogram eventToAnswer = new Histogram(60_000, 3);
    private final HttpClient http = HttpClient.newHttpClient();
    private final String base;
    private final AtomicReference<Event> latest = new AtomicReference<>();
    private final Semaphore signal = new Semaphore(0);
    private volatile boolean open;

    PushClient(String base, Histogram delivery) {
      this.base = base;
      Thread.ofPlatform().daemon().name("push-client").start(() -> readEvents(http, base, () -> open = true,
          (data, received) -> {
            recordDelivery(delivery, data, received);
            events.incrementAndGet();
            latest.set(new Event(data.path("read").asLong(received), data.path("searchable").asLong(received),
                received));
            signal.release();
          }));
      Thread.ofPlatform().daemon().name("push-client-search").start(this::search);
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

    void expect(long key, long sentMillis) {
      pending.put(key, sentMillis);
    }

    Breakdown breakdown() {
      return new Breakdown(Percentiles.of(commandToRecord), Percentiles.of(recordToPollRead),
          Percentiles.of(pollReadToSearchable), Percentiles.of(searchableToEvent), Percentiles.of(eventToAnswer));
    }

    private void search() {
      try {
        while (true) {
          signal.acquire();
          signal.drainPermits(); // the events that came during the last search: one search for all of them
          refetch(latest.get());
        }
      } catch (IOException e) {
        // closed
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** What the page does on an event: one search; here for the probes not seen yet. */
    private void refetch(Event event) throws IOException, InterruptedException {
      searches.incrementAndGet();
      if (pending.isEmpty()) {
        return;
      }
      String keys = pending.keySet().stream().map(k -> "\"" + k + "\"").collect(Collectors.joining(","));
      HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(base + "/v2/process-instances/search"))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"filter\": {\"processInstanceKey\": {\"$in\": [" + keys
              + "]}}, \"page\": {\"limit\": 1000}}")).build(), HttpResponse.BodyHandlers.ofString());
      long now = System.currentTimeMillis();
      for (JsonNode item : JSON.readTree(answer.body()).path("items")) {
        Long sent = pending.remove(item.path("processInstanceKey").asLong());
        if (sent != null) {
          long record = OffsetDateTime.parse(item.path("startDate").asText()).toInstant().toEpochMilli();
          record(commandToPage, now - sent);
          record(recordToPage, now - record);
          record(commandToRecord, record - sent);
          record(recordToPollRead, event.pollRead() - record);
          record(pollReadToSearchable, event.searchable() - event.pollRead());
          record(searchableToEvent, event.received() - event.searchable());
          record(eventToAnswer, now - event.received());
        }
      }
    }

    /** Clocks read apart by a millisecond can give -1: recorded as 0. */
    private static void record(Histogram histogram, long millis) {
      histogram.recordValue(Math.max(0, Math.min(60_000, millis)));
    }

    @Override
    public void close() {
      http.shutdownNow();
    }
  }
}
