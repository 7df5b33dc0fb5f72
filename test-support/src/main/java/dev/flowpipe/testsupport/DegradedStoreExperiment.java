package dev.flowpipe.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.command.ClientStatusException;
import io.grpc.Status;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The flow-control experiment: a steady load of process instances against a node whose store can be slowed, run in
 * named phases, with the node's flow-control report sampled every 250 ms into a timeline. Used by the test that
 * proves the behaviour and by the benchmark scenario that plots it.
 */
public final class DegradedStoreExperiment implements AutoCloseable {

  /** One observation: what the clients saw in the last interval and what the node reported. */
  public record Sample(
      double seconds, String phase, double acceptedPerSecond, double rejectedPerSecond, double writeRate,
      double exportRate, long lagRecords, long lagMillis, Integer writeLimit, boolean throttling) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SAMPLE_EVERY = Duration.ofMillis(250);

  private final ZeebeClient client;
  private final URI flowControl;
  private final String processId;
  private final HttpClient http = HttpClient.newHttpClient();
  private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
  private final Set<Long> accepted = ConcurrentHashMap.newKeySet();
  private final AtomicLong acceptedCount = new AtomicLong();
  private final AtomicLong rejectedCount = new AtomicLong();
  private final AtomicLong otherErrors = new AtomicLong();
  private final AtomicLong unknownOutcome = new AtomicLong();
  private final java.util.Map<String, Long> errorKinds = new ConcurrentHashMap<>();
  private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
  // a client with a bounded number of requests in flight, like a real one; attempts beyond it are counted, not sent
  private static final int MAX_IN_FLIGHT = 1000;
  private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
  private final AtomicLong notSent = new AtomicLong();
  private volatile String phase = "start";
  private volatile boolean loading = true;
  private long startNanos;

  public DegradedStoreExperiment(ZeebeClient client, int httpPort, String processId) {
    this.client = client;
    this.flowControl = URI.create("http://127.0.0.1:" + httpPort + "/actuator/flowControl");
    this.processId = processId;
  }

  /** Starts instances at {@code perSecond} until {@link #stopLoad()}, and samples the node's report. */
  public void start(int perSecond) {
    startNanos = System.nanoTime();
    long periodNanos = 1_000_000_000L / perSecond;
    scheduler.scheduleAtFixedRate(this::startOne, 0, periodNanos, TimeUnit.NANOSECONDS);
    scheduler.scheduleAtFixedRate(this::sample, SAMPLE_EVERY.toMillis(), SAMPLE_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void startOne() {
    if (!loading) {
      return;
    }
    if (!inFlight.tryAcquire()) {
      notSent.incrementAndGet();
      return;
    }
    client.newCreateInstanceCommand().bpmnProcessId(processId).latestVersion().send()
        .whenComplete((created, error) -> {
          inFlight.release();
          if (error == null) {
            accepted.add(created.getProcessInstanceKey());
            acceptedCount.incrementAndGet();
          } else if (hasStatus(error, Status.Code.RESOURCE_EXHAUSTED)) {
            rejectedCount.incrementAndGet();
          } else if (hasStatus(error, Status.Code.DEADLINE_EXCEEDED)) {
            // the engine may or may not have created it: the client cannot tell
            unknownOutcome.incrementAndGet();
          } else {
            otherErrors.incrementAndGet();
            errorKinds.merge(String.valueOf(error), 1L, Long::sum);
          }
        });
  }

  /** Whether a client call failed with this gRPC status, anywhere in its causes. */
  public static boolean hasStatus(Throwable error, Status.Code code) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof ClientStatusException status && status.getStatusCode() == code) {
        return true;
      }
      if (t instanceof io.grpc.StatusRuntimeException status && status.getStatus().getCode() == code) {
        return true;
      }
    }
    return false;
  }

  /** Requests that timed out: the instance may exist or not. */
  public long unknownOutcome() {
    return unknownOutcome.get();
  }

  /** Errors other than backpressure, by message, for the test's failure report. */
  public java.util.Map<String, Long> errorKinds() {
    return java.util.Map.copyOf(errorKinds);
  }

  private long lastAccepted;
  private long lastRejected;
  private long lastSampleNanos;

  private void sample() {
    try {
      long now = System.nanoTime();
      double interval = lastSampleNanos == 0 ? SAMPLE_EVERY.toNanos() / 1e9 : (now - lastSampleNanos) / 1e9;
      long acceptedNow = acceptedCount.get();
      long rejectedNow = rejectedCount.get();
      JsonNode partition = report().path("partitions").path(0);
      JsonNode limit = partition.path("writeLimit");
      samples.add(new Sample(
          (now - startNanos) / 1e9, phase,
          (acceptedNow - lastAccepted) / interval, (rejectedNow - lastRejected) / interval,
          partition.path("writeRate").asDouble(), partition.path("exportRate").asDouble(),
          partition.path("lagRecords").asLong(), partition.path("lagMillis").asLong(),
          limit.path("enabled").asBoolean() ? limit.path("limit").asInt() : null,
          partition.path("throttling").asBoolean()));
      lastAccepted = acceptedNow;
      lastRejected = rejectedNow;
      lastSampleNanos = now;
    } catch (Exception e) {
      // a missed sample is a gap in the timeline, not a failure of the run
    }
  }

  /** Names the phase that the following samples belong to. */
  public void phase(String name) {
    phase = name;
  }

  /** Waits, keeping the load and the sampling going. */
  public void run(Duration length) throws InterruptedException {
    Thread.sleep(length.toMillis());
  }

  /** Stops starting instances and waits (up to a minute) for the answers to those in flight. */
  public void stopLoad() throws InterruptedException {
    loading = false;
    if (inFlight.tryAcquire(MAX_IN_FLIGHT, 60, TimeUnit.SECONDS)) {
      inFlight.release(MAX_IN_FLIGHT);
    }
  }

  public JsonNode report() throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(flowControl).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(response.body());
  }

  /** POSTs a settings change to the node's endpoint; returns the status code and body. */
  public HttpResponse<String> configure(String jsonBody) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(flowControl).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(jsonBody)).build(), HttpResponse.BodyHandlers.ofString());
  }

  public List<Sample> samples() {
    synchronized (samples) {
      return List.copyOf(samples);
    }
  }

  public List<Sample> samples(String phase) {
    return samples().stream().filter(s -> s.phase().equals(phase)).toList();
  }

  /** The timeline as CSV, one sample per line. */
  public String csv() {
    StringBuilder out = new StringBuilder(
        "seconds,phase,acceptedPerSecond,rejectedPerSecond,writeRate,exportRate,lagRecords,lagMillis,writeLimit,throttling\n");
    for (Sample s : samples()) {
      out.append(String.format(java.util.Locale.ROOT, "%.2f,%s,%.1f,%.1f,%.1f,%.1f,%d,%d,%s,%s%n", s.seconds(),
          s.phase(), s.acceptedPerSecond(), s.rejectedPerSecond(), s.writeRate(), s.exportRate(), s.lagRecords(),
          s.lagMillis(), s.writeLimit() == null ? "" : s.writeLimit(), s.throttling()));
    }
    return out.toString();
  }

  /**
   * Waits (up to a minute) until every one of these instances is in the read model's instance index, which
   * {@code getAll} reads (the documents found of a chunk of ids, by id; e.g. {@code SearchStore.getAll} on the index).
   */
  public static void awaitInReadModel(java.util.function.Function<List<String>, ? extends java.util.Map<String, ?>> getAll,
      java.util.Collection<Long> instanceKeys) {
    List<String> keys = instanceKeys.stream().map(String::valueOf).toList();
    org.awaitility.Awaitility.await("every accepted instance in the read model").atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(() -> {
          for (int from = 0; from < keys.size(); from += 500) {
            List<String> chunk = keys.subList(from, Math.min(keys.size(), from + 500));
            org.assertj.core.api.Assertions.assertThat(getAll.apply(chunk)).as("accepted instances found")
                .hasSize(chunk.size());
          }
        });
  }

  public Set<Long> acceptedKeys() {
    return Set.copyOf(accepted);
  }

  public long rejected() {
    return rejectedCount.get();
  }

  /** Attempts not sent because the client had its maximum of requests in flight. */
  public long notSent() {
    return notSent.get();
  }

  public long otherErrors() {
    return otherErrors.get();
  }

  @Override
  public void close() {
    loading = false;
    scheduler.shutdownNow();
  }
}
