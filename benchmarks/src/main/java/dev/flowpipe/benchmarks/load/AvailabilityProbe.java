package dev.flowpipe.benchmarks.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.client.ZeebeClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Data availability of one probe instance (a start-to-end process, created with a result): from its end date in the
 * engine to COMPLETED (a) in a search of the store (not a real-time get: what a UI would see) and (b) in an answer of
 * the web app's search API ({@code POST /v2/process-instances/search}), both polled every 10 ms. The end date is the
 * engine's clock, the visibility the client's: on one machine the same clock.
 *
 * <p>Used by {@code bulk-delay-sweep} (sequential probes beside a background load) and by {@code load} (a probe
 * thread beside the load generator).
 */
public final class AvailabilityProbe implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** When one probe became visible, in ms after its end date; -1 where it was not seen before the deadline. */
  public record Visibility(long storeMillis, long apiMillis) {}

  private final ZeebeClient client;
  private final SearchStore store;
  private final String index;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI search;
  private final Histogram storeLatency = new Histogram(TimeUnit.MINUTES.toMillis(5), 3);
  private final Histogram apiLatency = new Histogram(TimeUnit.MINUTES.toMillis(5), 3);
  private Thread thread;

  /** @param store the node's store, null to probe the web app's API only */
  public AvailabilityProbe(ZeebeClient client, SearchStore store, String indexPrefix, URI nodeHttp) {
    this.client = client;
    this.store = store;
    this.index = ReadModelIndex.PROCESS_INSTANCE.indexName(indexPrefix);
    this.search = nodeHttp.resolve("/v2/process-instances/search");
  }

  /** Probes one after another, with {@code pause} between them, on a thread of its own until closed. */
  public AvailabilityProbe start(Duration pause) {
    thread = Thread.ofPlatform().daemon().name("availability-probe").start(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        try {
          record(probe());
          Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          // a probe that failed (e.g. its create timed out) is not a latency; the next one goes on
        }
      }
    });
    return this;
  }

  /** Creates one probe instance and waits (up to 60 s) until the store and the API show it as COMPLETED. */
  public Visibility probe() throws Exception {
    long key = Availability.createProbe(client);
    return poll(key, System.currentTimeMillis() + 60_000);
  }

  public Visibility poll(long key, long deadline) throws Exception {
    long storeAt = store == null ? 0 : -1;
    long apiAt = -1;
    long endedAt = -1;
    HttpRequest request = HttpRequest.newBuilder(search).timeout(Duration.ofSeconds(5))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"filter\": {\"processInstanceKey\": \"" + key
            + "\", \"state\": \"COMPLETED\"}}"))
        .build();
    while ((storeAt < 0 || apiAt < 0) && System.currentTimeMillis() < deadline) {
      if (storeAt < 0) {
        var found = store.findByField(index, "key", key, 1);
        if (!found.isEmpty() && "COMPLETED".equals(found.getFirst().get("state"))) {
          storeAt = System.currentTimeMillis();
          endedAt = Instant.parse((String) found.getFirst().get("endDate")).toEpochMilli();
        }
      }
      if (apiAt < 0) {
        JsonNode items = JSON.readTree(http.send(request, HttpResponse.BodyHandlers.ofString()).body())
            .path("items");
        if (items.size() > 0) {
          apiAt = System.currentTimeMillis();
          if (endedAt < 0) {
            endedAt = Instant.parse(items.get(0).path("endDate").asText()).toEpochMilli();
          }
        }
      }
      Thread.sleep(10); // the polling itself must not load the store: 10 ms granularity
    }
    return new Visibility(store == null || storeAt < 0 ? -1 : Math.max(0, storeAt - endedAt),
        apiAt < 0 ? -1 : Math.max(0, apiAt - endedAt));
  }

  public synchronized void record(Visibility v) {
    if (v.storeMillis() >= 0) {
      storeLatency.recordValue(Math.min(v.storeMillis(), storeLatency.getHighestTrackableValue()));
    }
    if (v.apiMillis() >= 0) {
      apiLatency.recordValue(Math.min(v.apiMillis(), apiLatency.getHighestTrackableValue()));
    }
  }

  public synchronized Histogram storeLatency() {
    return storeLatency.copy();
  }

  public synchronized Histogram apiLatency() {
    return apiLatency.copy();
  }

  @Override
  public void close() throws InterruptedException {
    if (thread != null) {
      thread.interrupt();
      thread.join(5_000);
    }
  }
}
