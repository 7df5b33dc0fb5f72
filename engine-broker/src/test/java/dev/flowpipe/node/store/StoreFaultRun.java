package dev.flowpipe.node.store;

import static dev.flowpipe.testsupport.DegradedStoreExperiment.hasStatus;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.grpc.Status;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.awaitility.Awaitility;

/**
 * A fault run on a real node: a steady load of instances of a start-to-end process created with their result, so the
 * engine itself says which instances exist and that they completed (the oracle, apart from our exporter); and a
 * timeline of the node's store health and flow-control report, polled every 100 ms.
 */
final class StoreFaultRun implements AutoCloseable {

  /** One poll: when (ms since the run began) and what the node said. */
  record Observation(long millis, String health, String processState, String diskState, boolean diskHold,
      Integer writeLimit, long lagMillis, boolean storeBlocksWrites) {}

  /** Caught up: the oldest record not yet durable in the store is younger than this. */
  static final long CAUGHT_UP_MILLIS = 1000;

  static final String PROCESS_ID = "store-fault";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_IN_FLIGHT = 500;

  private final TestNode node;
  private final ZeebeClient client;
  private final HttpClient http = HttpClient.newHttpClient();
  private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
  private final Set<Long> completed = ConcurrentHashMap.newKeySet();
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong unknown = new AtomicLong();
  private final Map<String, Long> errors = new ConcurrentHashMap<>();
  private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
  private final List<Observation> timeline = Collections.synchronizedList(new ArrayList<>());
  private final long startNanos = System.nanoTime();
  private volatile boolean loading = true;

  StoreFaultRun(TestNode node) {
    this.node = node;
    this.client = node.client();
    client.newDeployResourceCommand()
        .addProcessModel(Bpmn.createExecutableProcess(PROCESS_ID).startEvent().endEvent().done(), "store-fault.bpmn")
        .send().join();
  }

  /** Starts creating {@code perSecond} instances and polling the node. */
  StoreFaultRun start(int perSecond) {
    scheduler.scheduleAtFixedRate(this::createOne, 0, 1_000_000_000L / perSecond, TimeUnit.NANOSECONDS);
    scheduler.scheduleWithFixedDelay(this::observe, 0, 100, TimeUnit.MILLISECONDS);
    return this;
  }

  long millis() {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  private void createOne() {
    if (!loading || !inFlight.tryAcquire()) {
      return;
    }
    client.newCreateInstanceCommand().bpmnProcessId(PROCESS_ID).latestVersion().withResult()
        .requestTimeout(Duration.ofSeconds(60)).send()
        .whenComplete((result, error) -> {
          inFlight.release();
          if (error == null) {
            completed.add(result.getProcessInstanceKey());
          } else if (hasStatus(error, Status.Code.RESOURCE_EXHAUSTED)) {
            rejected.incrementAndGet(); // refused by flow control: never created
          } else if (hasStatus(error, Status.Code.DEADLINE_EXCEEDED)) {
            unknown.incrementAndGet();
          } else {
            errors.merge(String.valueOf(error), 1L, Long::sum);
          }
        });
  }

  private void observe() {
    try {
      JsonNode health = get("/actuator/health/searchStore");
      JsonNode flowControl = get("/actuator/flowControl");
      JsonNode partition = flowControl.path("partitions").path(0);
      JsonNode limit = partition.path("writeLimit");
      timeline.add(new Observation(millis(), health.path("status").asText(),
          health.path("details").path("process").path("state").asText(null),
          health.path("details").path("disk").path("state").asText(null),
          flowControl.path("diskHold").asBoolean(),
          limit.path("enabled").asBoolean() ? limit.path("limit").asInt() : null,
          partition.path("lagMillis").asLong(Long.MAX_VALUE), storeBlocksWrites()));
    } catch (Exception e) {
      // a missed poll is a gap in the timeline
    }
  }

  /** Asked of the store itself: does any index carry the flood stage's read-only-allow-delete block? */
  private boolean storeBlocksWrites() {
    try {
      HttpResponse<String> answer = http.send(HttpRequest.newBuilder(
              URI.create(node.store().connection().url() + "/_all/_settings/index.blocks.read_only_allow_delete"))
          .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
      return answer.statusCode() == 200 && answer.body().contains("\"read_only_allow_delete\":\"true\"");
    } catch (Exception e) {
      return false; // a store that does not answer blocks nothing by a setting
    }
  }

  JsonNode get(String path) throws Exception {
    HttpResponse<String> answer = http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
            .timeout(Duration.ofSeconds(5)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(answer.body());
  }

  /** Waits until an observation after {@code fromMillis} matches; returns its time. */
  long awaitObservation(String what, long fromMillis, Duration atMost, Predicate<Observation> matches) {
    long[] at = {-1};
    Awaitility.await(what).atMost(atMost).pollInterval(Duration.ofMillis(50)).until(() -> {
      synchronized (timeline) {
        for (Observation o : timeline) {
          if (o.millis() >= fromMillis && matches.test(o)) {
            at[0] = o.millis();
            return true;
          }
        }
      }
      return false;
    });
    return at[0];
  }

  /** When, after {@code fromMillis}, the exporter had caught up (see {@link #CAUGHT_UP_MILLIS}). */
  long awaitCaughtUp(long fromMillis, Duration atMost) {
    return awaitObservation("the exporter caught up", fromMillis, atMost,
        o -> o.lagMillis() < CAUGHT_UP_MILLIS && "UP".equals(o.health()));
  }

  List<Observation> timeline() {
    synchronized (timeline) {
      return List.copyOf(timeline);
    }
  }

  /** Stops creating instances and waits for the answers to those in flight. */
  void stopLoad() throws InterruptedException {
    loading = false;
    if (inFlight.tryAcquire(MAX_IN_FLIGHT, 90, TimeUnit.SECONDS)) {
      inFlight.release(MAX_IN_FLIGHT);
    }
  }

  Set<Long> completed() {
    return Set.copyOf(completed);
  }

  long rejected() {
    return rejected.get();
  }

  long unknown() {
    return unknown.get();
  }

  Map<String, Long> errors() {
    return Map.copyOf(errors);
  }

  /**
   * The read model is exact: every instance the engine completed is there as COMPLETED, and there are no others.
   * Read through a connection of the test's own. Returns the milliseconds (of this run) when it first was.
   */
  long awaitReadModelExact(String prefix, Duration atMost) {
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    List<String> keys = completed.stream().map(String::valueOf).toList();
    try (SearchStore direct = SearchStoreConnector.connect(node.store().connection())) {
      Awaitility.await("every completed instance in the read model, as COMPLETED, and no other")
          .atMost(atMost).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            for (int from = 0; from < keys.size(); from += 500) {
              List<String> chunk = keys.subList(from, Math.min(keys.size(), from + 500));
              Map<String, Map<String, Object>> found = direct.getAll(index, chunk);
              assertThat(found).as("completed instances in the read model").hasSize(chunk.size());
              assertThat(found.values()).allSatisfy(document ->
                  assertThat(document.get("state")).as("state of %s", document.get("key")).isEqualTo("COMPLETED"));
            }
            direct.refresh(index);
            long count = direct.count(index);
            if (count != keys.size()) {
              assertThat(count).as("instances in the read model; those the engine did not answer as completed: %s",
                  others(direct, index)).isEqualTo(keys.size());
            }
          });
      String deadLetters = ReadModelIndex.DEAD_LETTER.indexName(prefix);
      assertThat(direct.indexExists(deadLetters) ? direct.count(deadLetters) : 0).as("dead letters").isZero();
    }
    return millis();
  }

  /**
   * The read model's instances that no completed creation answered, with what the client saw meanwhile: names the
   * instance a failed count is about (a creation refused, timed out or failed on the client's side that the engine
   * did create, or a document that should not be there).
   */
  private String others(SearchStore direct, String index) {
    List<String> found = new ArrayList<>();
    for (Map<String, Object> document : direct.findByField(index, "bpmnProcessId", PROCESS_ID, 10_000)) {
      Object key = document.get("key");
      if (key != null && !completed.contains(Long.parseLong(String.valueOf(key)))) {
        found.add(key + " " + document.get("state") + " started " + document.get("startDate") + " ended "
            + document.get("endDate"));
      }
    }
    return found + " (client: " + rejected.get() + " refused, " + unknown.get() + " timed out, errors " + errors + ")";
  }

  @Override
  public void close() {
    loading = false;
    scheduler.shutdownNow();
    client.close();
  }
}
