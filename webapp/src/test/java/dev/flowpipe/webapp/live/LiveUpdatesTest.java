package dev.flowpipe.webapp.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.TestWebapp;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The live stream ({@code GET /ui/live}) over a real store whose export positions the test moves as an exporter
 * would (the same documents, written the same way): each stream hears of a move once, a reconnect with
 * {@code Last-Event-ID} hears only of what it missed, and the store is read once per poll whatever the number of
 * streams.
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveUpdatesTest {

  private SearchStore store;
  private String prefix;
  private String positions;
  private TestWebapp app;
  private long position = 100;

  @BeforeAll
  void start(SearchStore store, EmbeddedSearchStore node) {
    this.store = store;
    prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    positions = ReadModelIndex.EXPORT_POSITION.indexName(prefix);
    mark(1, position);
    mark(2, 50);
    store.refresh(positions);
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix,
        "flowpipe.webapp.live.poll-interval", "50ms"));
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  /** What the exporter's ExportPositionMarker writes. */
  private void mark(int partition, long at) {
    assertThat(store.bulk(List.of(new DocumentWrite(positions, ReadModelIndex.exportPositionId(partition), at,
        Map.of("partitionId", partition))), false).failures()).isEmpty();
  }

  /** A stream's events (name, id, data), read as they arrive. */
  private final class Stream implements AutoCloseable {
    final List<String> events = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    Stream(String lastEventId) {
      this(app, lastEventId);
    }

    Stream(TestWebapp server, String lastEventId) {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/ui/live"))
          .header("Accept", "text/event-stream");
      if (lastEventId != null) {
        request.header("Last-Event-ID", lastEventId);
      }
      Thread.ofPlatform().daemon().start(() -> {
        try {
          HttpResponse<java.io.InputStream> response = http.send(request.build(),
              HttpResponse.BodyHandlers.ofInputStream());
          BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
          StringBuilder event = new StringBuilder();
          String line;
          while ((line = lines.readLine()) != null) {
            if (line.isEmpty()) {
              if (event.toString().contains("event:positions")) {
                events.add(event.toString());
              }
              event.setLength(0);
            } else {
              event.append(line).append('\n');
            }
          }
        } catch (IOException e) {
          // closed
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }

    @Override
    public void close() {
      http.shutdownNow();
    }
  }

  @Nested
  class AStream {

    @Test
    void startsWithWhereTheReadModelIsThenHearsOfEachMoveOnce() {
      try (Stream stream = new Stream(null)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> stream.events.size() == 1);
        assertThat(stream.events.getFirst()).contains("id:1:" + position + ",2:50");

        mark(1, ++position);

        await().atMost(Duration.ofSeconds(10)).until(() -> stream.events.size() == 2);
        assertThat(stream.events.get(1)).contains("id:1:" + position + ",2:50").contains("data:{\"moved\":{\"1\":"
            + position + "},\"read\":");
      }
    }

    @Test
    void thatReconnectsHearsOnlyWhetherItMissedSomething() {
      String current;
      try (Stream first = new Stream(null)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> first.events.size() == 1);
        current = first.events.getFirst().replaceAll("(?s).*id:([^\n]*)\n.*", "$1");
      }
      try (Stream upToDate = new Stream(current)) {
        mark(2, 60);
        await().atMost(Duration.ofSeconds(10)).until(() -> upToDate.events.size() == 1);
        assertThat(upToDate.events.getFirst()).contains("data:{\"moved\":{\"2\":60},\"read\":");
      }
      try (Stream behind = new Stream(current)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> behind.events.size() == 1);
        assertThat(behind.events.getFirst()).contains(",2:60").contains("data:{\"moved\":{\"2\":60}}");
      }
    }
  }

  @Nested
  class ManyStreams {

    @Test
    void shareOnePollOfTheStore() {
      LiveUpdates updates = app.context().getBean(LiveUpdates.class);
      try (Stream a = new Stream(null); Stream b = new Stream(null); Stream c = new Stream(null)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> updates.openStreams() >= 3);
        // a full round after the streams opened: the read model's earlier moves (other tests') are behind them
        long opened = updates.polls();
        await().atMost(Duration.ofSeconds(10)).until(() -> updates.polls() >= opened + 2);
        long reads = updates.storeReads();
        long polls = updates.polls();
        mark(1, ++position);
        await().atMost(Duration.ofSeconds(10)).until(() -> a.events.stream().anyMatch(e -> e.contains("1:" + position))
            && b.events.stream().anyMatch(e -> e.contains("1:" + position))
            && c.events.stream().anyMatch(e -> e.contains("1:" + position)));
        // per round one multi-get for all three streams; besides, one refresh for the move (and the round that was
        // under way when the counts were taken)
        await().atMost(Duration.ofSeconds(10)).until(() -> updates.polls() > polls);
        long rounds = updates.polls() - polls;
        assertThat(updates.refreshes()).as("refreshes, one per move").isPositive();
        assertThat(rounds).isPositive();
        assertThat(updates.storeReads() - reads).as("store reads in %d rounds with three streams", rounds)
            .isBetween(rounds - 1, rounds + 2);
      }
    }
  }

  /**
   * A second web app on the same store, set as the cases below need (one start for both): its keep-alive comments
   * come every millisecond (so a page's socket buffers fill within a second or two, where real events would take
   * hours), its sockets time a blocked write out after 8 s, and its poller does not refresh the read model
   * ({@code flowpipe.webapp.live.refresh=false}: for a store whose writer refreshes each bulk before it marks).
   */
  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class ASecondWebApp {

    private TestWebapp busy;

    @BeforeAll
    void start(EmbeddedSearchStore node) {
      busy = TestWebapp.start(Map.of("flowpipe.store.url", node.url(),
          "flowpipe.store.index-prefix", prefix,
          "flowpipe.webapp.live.poll-interval", "50ms", "flowpipe.webapp.live.keep-alive", "1ms",
          "flowpipe.webapp.live.write-timeout", "500ms", "server.tomcat.connection-timeout", "8s",
          "flowpipe.webapp.live.refresh", "false",
          "spring.main.sources", SmallSendBuffers.class.getName()));
    }

    @AfterAll
    void stop() {
      if (busy != null) {
        busy.close();
      }
    }

    @Test
    void withAPageThatStopsReadingDelaysNoOtherStreamAndClosesItOnceItsWriteIsStuck() throws IOException {
      LiveUpdates updates = busy.context().getBean(LiveUpdates.class);
      try (Stream reading = new Stream(busy, null); Socket stalled = new Socket()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> reading.events.size() == 1);
        stalled.setReceiveBufferSize(1024);
        stalled.connect(new InetSocketAddress("127.0.0.1", URI.create(busy.baseUrl()).getPort()));
        stalled.getOutputStream().write(("GET /ui/live HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Accept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));

        // when its socket buffers are full, its write blocks: after the write timeout the stream is dropped
        await().atMost(Duration.ofSeconds(30)).until(() -> updates.stuckStreams() == 1);

        // while that write is still blocked (the socket times it out after 8 s), the other page hears of each move
        for (int move = 0; move < 3; move++) {
          long at = ++position;
          long sent = System.nanoTime();
          mark(1, at);
          await().atMost(Duration.ofSeconds(2))
              .until(() -> reading.events.stream().anyMatch(e -> e.contains("id:1:" + at + ",")));
          assertThat(Duration.ofNanos(System.nanoTime() - sent)).isLessThan(Duration.ofSeconds(2));
        }

        // and the stalled page's connection is closed: what it did not read drains, then the stream ends
        stalled.setSoTimeout(30_000);
        InputStream in = stalled.getInputStream();
        byte[] buffer = new byte[8192];
        while (in.read(buffer) >= 0) {
          // drain until the server closes the connection
        }
        assertThat(updates.openStreams()).isEqualTo(1);

        // once both pages are gone, no writer keeps working for them
        reading.close();
        await().atMost(Duration.ofSeconds(10)).during(Duration.ofMillis(500))
            .until(() -> Thread.getAllStackTraces().keySet().stream().noneMatch(
                t -> t.getName().startsWith("flowpipe-live-writer-") && t.getState() == Thread.State.RUNNABLE));
        await().atMost(Duration.ofSeconds(10)).until(() -> updates.openStreams() == 0);
      }
    }

    @Test
    void withoutTheRefreshStillTellsOfEachMoveAndAsksForNoRefresh() {
      LiveUpdates updates = busy.context().getBean(LiveUpdates.class);
      try (Stream stream = new Stream(busy, null)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> stream.events.size() == 1);
        long refreshes = updates.refreshes();

        long at = ++position;
        mark(1, at);

        await().atMost(Duration.ofSeconds(10))
            .until(() -> stream.events.stream().anyMatch(e -> e.contains("id:1:" + at + ",")));
        assertThat(updates.refreshes() - refreshes).isZero();
      }
    }
  }
}
