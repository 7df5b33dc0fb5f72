package dev.flowpipe.webapp.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.TestWebapp;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A web app that stops with a page open: its graceful shutdown waits for requests in flight, and a live stream never
 * ends by itself, so the streams are ended first. Otherwise one open page held every stop of the node or the server
 * for the whole grace period and was then cut off.
 */
@ExtendWith(SharedOpenSearch.class)
class LiveStreamsAtShutdownTest {

  /** Far longer than a stop takes: a stop held by the open stream is unmistakable. */
  private static final Duration GRACE = Duration.ofSeconds(60);

  @Test
  void givenAnOpenPageWhenTheWebAppStopsGracefullyThenItsStreamEndsAndTheStopIsNotHeld(SearchStore store,
      EmbeddedSearchStore node) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    TestWebapp app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix,
        "server.shutdown", "graceful", "spring.lifecycle.timeout-per-shutdown-phase", GRACE.toSeconds() + "s"));
    HttpClient http = HttpClient.newHttpClient();
    try {
      HttpResponse<InputStream> opened = http.send(HttpRequest.newBuilder(URI.create(app.baseUrl() + "/ui/live"))
          .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofInputStream());
      assertThat(opened.statusCode()).isEqualTo(200);
      // the stream is open once its first event or comment arrived
      InputStream stream = opened.body();
      assertThat(stream.read()).as("the stream's first byte").isNotNegative();
      CompletableFuture<Long> ended = CompletableFuture.supplyAsync(() -> {
        try {
          return stream.transferTo(java.io.OutputStream.nullOutputStream());
        } catch (java.io.IOException e) {
          return -1L;
        }
      });

      long started = System.nanoTime();
      app.close();
      Duration stopping = Duration.ofNanos(System.nanoTime() - started);

      assertThat(ended.get(10, TimeUnit.SECONDS)).as("the stream ended by the server, not cut off").isNotNegative();
      assertThat(stopping).as("the stop, with a grace period of %s", GRACE).isLessThan(GRACE.dividedBy(3));
    } finally {
      http.shutdownNow();
      app.close();
    }
  }
}
