package dev.flowpipe.webapp.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.ManualClock;
import dev.flowpipe.webapp.readmodel.ReadModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The alert dispatcher on a real store, driven round by round with a manual clock (the scheduler never runs a round
 * here), with a fake of our own {@link WebhookSender} that records each POST and answers as the test says: alerts are
 * signed, claimed by one of two dispatchers only, retried after doubling waits and then failed, taken over when a
 * claim expires, and never re-armed by a replayed creation.
 */
@ExtendWith(SharedOpenSearch.class)
class AlertDispatcherTest {

  private static final String SECRET = "a-secret-of-16-chars";
  private static final AlertProperties.Endpoint OPS = new AlertProperties.Endpoint("ops", URI.create("http://ops.test/hook"));
  private static final AlertProperties.Endpoint SLOW = new AlertProperties.Endpoint("slow", URI.create("http://slow.test/hook"));

  private final ManualClock clock = new ManualClock();
  private final List<ScheduledExecutorService> schedulers = new ArrayList<>();
  private final List<AlertDispatcher> dispatchers = new ArrayList<>();
  private SearchStore store;
  private String prefix;
  private ReadModel readModel;

  @BeforeEach
  void start(SearchStore sharedStore) {
    store = sharedStore;
    prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    readModel = new ReadModel() {
      @Override
      public SearchStore store() {
        return store;
      }

      @Override
      public String indexPrefix() {
        return prefix;
      }
    };
  }

  @AfterEach
  void stop() {
    schedulers.forEach(ScheduledExecutorService::shutdownNow);
  }

  /** A POST the fake sender received, and the answer the test gives it. */
  record Post(String endpoint, Map<String, String> headers, String body, CompletableFuture<Integer> answer) {}

  /** Records every POST; answers each with {@code status} at once, or leaves it open when status is null. */
  static class FakeSender implements WebhookSender {
    final List<Post> posts = new ArrayList<>();
    Integer status = 200;

    @Override
    public synchronized CompletableFuture<Integer> post(URI url, Map<String, String> headers, byte[] body) {
      CompletableFuture<Integer> answer = new CompletableFuture<>();
      posts.add(new Post(url.getHost(), headers, new String(body, StandardCharsets.UTF_8), answer));
      if (status != null) {
        answer.complete(status);
      }
      return answer;
    }

    List<String> alertIds(String endpoint) {
      return posts.stream().filter(p -> p.endpoint().startsWith(endpoint + "."))
          .map(p -> p.headers().get(AlertSignature.ALERT_ID_HEADER)).toList();
    }
  }

  private static AlertProperties settings(List<AlertProperties.Endpoint> endpoints, int maxAttempts, int maxInFlight,
      List<String> errorTypes) {
    return new AlertProperties(true, endpoints, SECRET, Duration.ofSeconds(5), maxAttempts, Duration.ofSeconds(1),
        Duration.ofSeconds(30), Duration.ofHours(1), Duration.ofSeconds(20), maxInFlight, errorTypes,
        Duration.ofHours(1), URI.create("http://ui.test:8080/"));
  }

  private AlertDispatcher dispatcher(String owner, AlertProperties settings, WebhookSender sender,
      SimpleMeterRegistry registry) {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    schedulers.add(scheduler);
    AlertDispatcher dispatcher = new AlertDispatcher(new AlertStore(readModel), settings, sender,
        new AlertMetrics(registry), clock, scheduler, Runnable::run, owner);
    dispatchers.add(dispatcher);
    return dispatcher;
  }

  private AlertDispatcher dispatcher(String owner, AlertProperties settings, WebhookSender sender) {
    return dispatcher(owner, settings, sender, new SimpleMeterRegistry());
  }

  /** An alert as the writer arms it: id = incident key, version = the incident's position. */
  private BulkOutcome armAlert(long incidentKey, long position, String errorType, Instant created) {
    Map<String, Object> alert = new LinkedHashMap<>();
    alert.put("key", incidentKey);
    alert.put("processInstanceKey", incidentKey + 1000);
    alert.put("processDefinitionKey", 7L);
    alert.put("bpmnProcessId", "order");
    alert.put("elementInstanceKey", incidentKey + 2000);
    alert.put("elementId", "charge");
    alert.put("errorType", errorType);
    alert.put("errorMessage", "no retries left");
    alert.put("state", "NEW");
    alert.put("creationTime", created.toString());
    alert.put("tenantId", "<default>");
    alert.put("partitionId", 1);
    return store.bulk(List.of(new DocumentWrite(ReadModelIndex.ALERT.indexName(prefix), String.valueOf(incidentKey),
        position, alert)), true);
  }

  private BulkOutcome armAlert(long incidentKey, long position) {
    return armAlert(incidentKey, position, "JOB_NO_RETRIES", clock.instant());
  }

  private Map<String, Object> delivery(long incidentKey, String endpoint) {
    return store.get(ReadModelIndex.ALERT_DELIVERY.indexName(prefix), incidentKey + "-" + endpoint).orElseThrow();
  }

  @Nested
  class Signing {

    @Test
    void signsTheTimestampAndTheBodyWithHmacSha256AsAKnownVectorSays() {
      // computed apart from this code (Python's hmac module) for this secret, timestamp and body
      assertThat(new AlertSignature(SECRET).sign(1764300000L, "{\"incidentKey\":\"1\"}".getBytes(StandardCharsets.UTF_8)))
          .isEqualTo("sha256=e86fc507519fd7996b6a7664e29ff801af5afca2c13f65128eec3021924f1cc4");
    }

    @Test
    void sendsTheSignatureOfTheTimestampHeaderAndTheExactBody() {
      FakeSender sender = new FakeSender();
      armAlert(11, 100);
      dispatcher("a", settings(List.of(OPS), 3, 16, List.of()), sender).round();

      assertThat(sender.posts).hasSize(1);
      Post post = sender.posts.getFirst();
      long timestamp = Long.parseLong(post.headers().get(AlertSignature.TIMESTAMP_HEADER));
      assertThat(timestamp).isEqualTo(clock.instant().getEpochSecond());
      assertThat(post.headers().get(AlertSignature.SIGNATURE_HEADER)).isEqualTo(
          new AlertSignature(SECRET).sign(timestamp, post.body().getBytes(StandardCharsets.UTF_8)));
      assertThat(post.headers().get(AlertSignature.ALERT_ID_HEADER)).isEqualTo("11");
      assertThat(post.body()).contains("\"incidentKey\":\"11\"", "\"processInstanceKey\":\"1011\"",
          "\"errorType\":\"JOB_NO_RETRIES\"", "\"link\":\"http://ui.test:8080/#/instances/1011\"");
    }
  }

  @Nested
  class Claiming {

    @Test
    void twoDispatchersOnOneStoreSendEachAlertOnce() {
      FakeSender sender = new FakeSender();
      AlertProperties settings = settings(List.of(OPS), 3, 16, List.of());
      AlertDispatcher first = dispatcher("first", settings, sender);
      AlertDispatcher second = dispatcher("second", settings, sender);
      for (int i = 1; i <= 6; i++) {
        armAlert(i, 100 + i);
      }

      for (int round = 0; round < 3; round++) {
        first.round();
        second.round();
      }

      assertThat(sender.alertIds("ops")).containsExactlyInAnyOrder("1", "2", "3", "4", "5", "6");
      assertThat(delivery(3, "ops")).containsEntry("state", "DELIVERED").containsEntry("attempts", 1);
    }

    @Test
    void aReplayedCreationOfADeliveredAlertIsRefusedAndSendsNothingAgain() {
      FakeSender sender = new FakeSender();
      AlertDispatcher dispatcher = dispatcher("a", settings(List.of(OPS), 3, 16, List.of()), sender);
      armAlert(21, 500);
      dispatcher.round();

      BulkOutcome replay = armAlert(21, 500);
      dispatcher.round();
      clock.advance(Duration.ofHours(2));
      dispatcher.round();

      assertThat(replay.superseded()).hasSize(1);
      assertThat(sender.alertIds("ops")).containsExactly("21");
    }

    @Test
    void aClaimWhoseProcessStoppedBeforeTheMarkIsTakenOverOnceItExpires() {
      FakeSender silent = new FakeSender();
      silent.status = null; // the first process never hears back: as if it died after its POST
      FakeSender answering = new FakeSender();
      AlertProperties settings = settings(List.of(OPS), 3, 16, List.of());
      armAlert(31, 600);
      dispatcher("dies", settings, silent).round();
      AlertDispatcher survivor = dispatcher("survives", settings, answering);

      survivor.round();
      assertThat(answering.posts).isEmpty();
      clock.advance(Duration.ofSeconds(21));
      survivor.round();

      assertThat(silent.alertIds("ops")).containsExactly("31");
      assertThat(answering.alertIds("ops")).containsExactly("31"); // at least once: the receiver dedupes on the id
      assertThat(delivery(31, "ops")).containsEntry("state", "DELIVERED");
    }
  }

  @Nested
  class Retrying {

    @Test
    void aFailingEndpointIsRetriedAfterDoublingWaitsAndThenMarkedFailed() {
      FakeSender sender = new FakeSender();
      sender.status = 503;
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      AlertDispatcher dispatcher = dispatcher("a", settings(List.of(OPS), 3, 16, List.of()), sender, registry);
      armAlert(41, 700);

      dispatcher.round(); // attempt 1
      dispatcher.round(); // not due yet
      clock.advance(Duration.ofMillis(999));
      dispatcher.round(); // not due yet
      clock.advance(Duration.ofMillis(1));
      dispatcher.round(); // attempt 2, 1 s after the first
      clock.advance(Duration.ofMillis(1999));
      dispatcher.round(); // not due yet
      clock.advance(Duration.ofMillis(1));
      dispatcher.round(); // attempt 3, 2 s after the second: the last
      clock.advance(Duration.ofMinutes(10));
      dispatcher.round();

      assertThat(sender.posts).hasSize(3);
      assertThat(delivery(41, "ops")).containsEntry("state", "FAILED").containsEntry("attempts", 3)
          .containsEntry("lastError", "HTTP 503");
      assertThat(registry.get("flowpipe.alerts.failed").counter().count()).isEqualTo(1);
      assertThat(registry.get("flowpipe.alerts.retries").counter().count()).isEqualTo(2);
    }

    @Test
    void anEndpointThatIsDownGetsTheAlertOnceItIsUpAgain() {
      FakeSender sender = new FakeSender();
      sender.status = 502;
      AlertDispatcher dispatcher = dispatcher("a", settings(List.of(OPS), 5, 16, List.of()), sender);
      armAlert(42, 710);
      dispatcher.round();
      sender.status = 204;
      clock.advance(Duration.ofSeconds(1));
      dispatcher.round();
      clock.advance(Duration.ofMinutes(5));
      dispatcher.round();

      assertThat(sender.posts).extracting(p -> p.answer().join()).containsExactly(502, 204);
      assertThat(delivery(42, "ops")).containsEntry("state", "DELIVERED").containsEntry("attempts", 2);
    }

    @Test
    void aHangingEndpointHoldsOnlyItsOwnDeliveries() {
      FakeSender sender = new FakeSender() {
        @Override
        public synchronized CompletableFuture<Integer> post(URI url, Map<String, String> headers, byte[] body) {
          status = url.getHost().startsWith("slow") ? null : 200;
          return super.post(url, headers, body);
        }
      };
      AlertDispatcher dispatcher = dispatcher("a", settings(List.of(SLOW, OPS), 3, 2, List.of()), sender);
      for (int i = 1; i <= 5; i++) {
        armAlert(50 + i, 800 + i);
      }

      for (int round = 0; round < 4; round++) {
        dispatcher.round();
      }

      assertThat(sender.alertIds("ops")).containsExactlyInAnyOrder("51", "52", "53", "54", "55");
      assertThat(sender.alertIds("slow")).hasSize(2); // its in-flight bound
    }
  }

  @Nested
  class Choosing {

    @Test
    void skipsIncidentsOfOtherErrorTypesAndOnesOlderThanTheMaximumAge() {
      FakeSender sender = new FakeSender();
      AlertDispatcher dispatcher = dispatcher("a", settings(List.of(OPS), 3, 16, List.of("JOB_NO_RETRIES")), sender);
      armAlert(61, 900, "JOB_NO_RETRIES", clock.instant());
      armAlert(62, 901, "IO_MAPPING_ERROR", clock.instant());
      armAlert(63, 902, "JOB_NO_RETRIES", clock.instant().minus(Duration.ofHours(2)));

      dispatcher.round();

      assertThat(sender.alertIds("ops")).containsExactly("61");
      assertThat(store.get(ReadModelIndex.ALERT.indexName(prefix), "62").orElseThrow())
          .containsEntry("state", "SKIPPED");
    }
  }

  @Nested
  class Settings {

    @Test
    void refusesAShortSecretNamingTheKey() {
      assertThatThrownBy(() -> new AlertProperties(true, List.of(OPS), "short", Duration.ofSeconds(5), 3,
          Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMillis(250), Duration.ofMinutes(1), 16, List.of(),
          Duration.ofHours(1), URI.create("http://ui.test")))
          .hasMessage("flowpipe.alerts.secret must have at least 16 characters when alerts are enabled, was 5"
              + " characters");
    }

    @Test
    void doublesTheWaitUpToTheMaximum() {
      AlertProperties settings = settings(List.of(OPS), 10, 16, List.of());
      assertThat(List.of(1, 2, 3, 4, 5, 6, 7).stream().map(settings::backoffAfter).map(Duration::toSeconds).toList())
          .containsExactly(1L, 2L, 4L, 8L, 16L, 30L, 30L);
    }

    @Test
    void printsNoSecret() {
      assertThat(settings(List.of(OPS), 3, 16, List.of()).toString()).doesNotContain(SECRET).contains("secret=****");
    }
  }
}
