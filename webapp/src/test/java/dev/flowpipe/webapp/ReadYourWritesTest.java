package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Read-your-writes on a read model whose indices refresh only every minute: without the consistency request a new
 * document stays invisible; with it, the answer waits for the write and includes it.
 */
@ExtendWith(SharedOpenSearch.class)
class ReadYourWritesTest {

  private static final int MAX_WAITS = 3;

  private static TestWebapp app;
  private static SearchStore store;
  private static String prefix;
  /** The configured maximum, which a request for an hour is cut to (and waits out): the default timeout, 5 s. */
  private static final long MAX_TIMEOUT_MILLIS = 5_000;

  @BeforeAll
  static void start(SearchStore sharedStore, EmbeddedSearchStore node) {
    store = sharedStore;
    prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "60s");
    app = TestWebapp.start(Map.of(
        "flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix,
        "flowpipe.webapp.consistency.max-timeout", MAX_TIMEOUT_MILLIS + "ms",
        "flowpipe.webapp.consistency.max-waits", MAX_WAITS));
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  private static void writeInstanceLater(long key, long delayMillis) {
    CompletableFuture.runAsync(
        () -> store.bulk(List.of(ReadModelFixture.doc(
            ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), key, ReadModelFixture.instance(1)))),
        CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS));
  }

  @Test
  void aNewInstanceIsNotSearchableBeforeTheNextRefreshWithoutAConsistencyRequest() {
    writeInstanceLater(20_001, 0);
    org.awaitility.Awaitility.await().until(() -> store.get(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), "20001").isPresent());

    Answer answer = app.post("/v2/process-instances/search", "{\"filter\": {\"processInstanceKey\": \"20001\"}}");

    assertThat(answer.json().path("page").path("totalItems").asLong()).isZero();
    assertThat(answer.header("Flowpipe-Consistency")).isNull();
    assertThat(answer.json().has("consistency")).isFalse();
  }

  @Test
  void theFirstAnswerIncludesAnInstanceWrittenWhileTheRequestWaits() {
    writeInstanceLater(20_002, 300);

    Answer answer = app.post("/v2/process-instances/search",
        "{\"filter\": {\"processInstanceKey\": \"20002\"}, \"consistency\": {\"processInstanceKey\": \"20002\", \"timeout\": \"5s\"}}");

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.json().path("items")).hasSize(1);
    assertThat(answer.header("Flowpipe-Consistency")).isEqualTo("reached");
    assertThat(answer.json().path("consistency").path("reached").asBoolean()).isTrue();
    assertThat(answer.json().path("consistency").path("waitedMillis").asLong()).isBetween(200L, 5000L);
  }

  @Test
  void otherEntitiesSearchedWithTheInstanceKeyAreCurrentToo() {
    long key = 20_003;
    CompletableFuture.runAsync(
        () -> store.bulk(List.of(
            ReadModelFixture.doc(ReadModelIndex.VARIABLE.indexName(prefix), 20_103,
                Map.of("scopeKey", key, "processInstanceKey", key, "name", "fresh", "value", "1", "truncated", false)),
            ReadModelFixture.doc(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), key, ReadModelFixture.instance(1)))),
        CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));

    Answer answer = app.post("/v2/variables/search",
        "{\"filter\": {\"processInstanceKey\": \"20003\"}, \"consistency\": {\"processInstanceKey\": \"20003\"}}");

    assertThat(answer.json().path("items")).singleElement().satisfies(v -> assertThat(v.path("name").asText()).isEqualTo("fresh"));
  }

  /** As the exporter does after a bulk is durable: the partition's export position. */
  private static void markExportedLater(int partitionId, long position, long delayMillis) {
    CompletableFuture.runAsync(
        () -> store.bulk(List.of(new dev.flowpipe.schema.store.DocumentWrite(
            ReadModelIndex.EXPORT_POSITION.indexName(prefix), ReadModelIndex.exportPositionId(partitionId), position,
            Map.of("partitionId", partitionId)))),
        CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS));
  }

  @Test
  void aLogPositionPerPartitionIsWaitedForUntilTheExporterMarksItDurable() {
    writeInstanceLater(30_000, 300); // the fixture writes each document at its key as position
    markExportedLater(1, 30_000, 400);

    Answer answer = app.post("/v2/process-instances/search",
        "{\"filter\": {\"processInstanceKey\": {\"$gte\": 30000}}, \"consistency\": {\"positions\": [{\"partitionId\": 1, \"position\": 30000}]}}");

    assertThat(answer.header("Flowpipe-Consistency")).isEqualTo("reached");
    assertThat(answer.json().path("items")).hasSize(1);
  }

  @Test
  void aDocumentAtALaterPositionIsNotEnoughWhileTheExportPositionIsBehind() {
    // a partly written bulk: a later document is in, an earlier change of the same partition is not yet
    markExportedLater(2, 40_000, 0);
    writeInstanceLater(40_010, 0);
    org.awaitility.Awaitility.await().until(() -> store.get(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), "40010").isPresent());

    Answer answer = app.post("/v2/process-instances/search",
        "{\"consistency\": {\"positions\": [{\"partitionId\": 2, \"position\": 40005}], \"timeout\": \"300ms\"}}");

    assertThat(answer.header("Flowpipe-Consistency")).isEqualTo("timed-out");
  }

  @Test
  void whenTheWriteDoesNotComeTheAnswerSaysSoAfterTheTimeout() {
    long start = System.nanoTime();

    Answer answer = app.post("/v2/process-instances/search",
        "{\"consistency\": {\"processInstanceKey\": \"99999\", \"timeout\": \"400ms\"}, \"page\": {\"limit\": 1}}");

    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.header("Flowpipe-Consistency")).isEqualTo("timed-out");
    assertThat(answer.json().path("consistency").path("reached").asBoolean()).isFalse();
    assertThat(tookMillis).isBetween(400L, 3000L);
  }

  @Test
  void aTimeoutAboveTheConfiguredMaximumIsCutToIt() {
    long start = System.nanoTime();

    Answer answer = app.post("/v2/process-instances/search",
        "{\"consistency\": {\"processInstanceKey\": \"99998\", \"timeout\": \"1h\"}, \"page\": {\"limit\": 1}}");

    assertThat(answer.header("Flowpipe-Consistency")).isEqualTo("timed-out");
    assertThat((System.nanoTime() - start) / 1_000_000).isBetween(MAX_TIMEOUT_MILLIS, MAX_TIMEOUT_MILLIS + 5_000);
  }

  @Test
  void aPositionAlreadyMadeSearchableIsAnsweredWithoutAnotherRefresh() {
    markExportedLater(3, 25_001, 0);
    writeInstanceLater(25_001, 0);
    org.awaitility.Awaitility.await().until(() -> store.get(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), "25001").isPresent()
        && store.get(ReadModelIndex.EXPORT_POSITION.indexName(prefix), ReadModelIndex.exportPositionId(3)).isPresent());
    String request = "{\"filter\": {\"processInstanceKey\": {\"$gte\": 25000, \"$lt\": 26000}},"
        + " \"consistency\": {\"positions\": [{\"partitionId\": 3, \"position\": 25001}]}}";
    Answer first = app.post("/v2/process-instances/search", request);
    assertThat(first.json().path("items")).as("the first wait refreshed: the instance is searchable").hasSize(1);

    // written after that refresh; the index refreshes itself only every 60 s
    writeInstanceLater(25_002, 0);
    org.awaitility.Awaitility.await().until(() -> store.get(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), "25002").isPresent());
    Answer again = app.post("/v2/process-instances/search", request);

    assertThat(again.header("Flowpipe-Consistency")).isEqualTo("reached");
    assertThat(again.json().path("items")).as("no second refresh: 25002 is not searchable yet").hasSize(1);
  }

  @Test
  void beyondTheMostWaitsAtOnceARequestIsRefused429WithRetryAfterAndTheWaitsEndAsUsual() throws Exception {
    String waiting = "{\"consistency\": {\"processInstanceKey\": \"99990\", \"timeout\": \"3s\"}, \"page\": {\"limit\": 0}}";
    List<CompletableFuture<Answer>> held = new java.util.ArrayList<>();
    for (int i = 0; i < MAX_WAITS; i++) {
      held.add(CompletableFuture.supplyAsync(() -> app.post("/v2/process-instances/search", waiting)));
    }
    org.awaitility.Awaitility.await().until(() -> app.context().getBean(
        dev.flowpipe.webapp.consistency.ReadYourWrites.class).waiting() == MAX_WAITS);

    Answer refused = app.post("/v2/process-instances/search", waiting);

    assertThat(refused.status()).as(refused.body()).isEqualTo(429);
    assertThat(refused.contentType()).startsWith("application/problem+json");
    assertThat(refused.header("Retry-After")).isEqualTo("1");
    assertThat(refused.json().path("limit").asText()).isEqualTo("flowpipe.webapp.consistency.max-waits");
    assertThat(refused.json().path("maximum").asInt()).isEqualTo(MAX_WAITS);
    for (CompletableFuture<Answer> wait : held) {
      Answer ended = wait.get(10, TimeUnit.SECONDS);
      assertThat(ended.status()).isEqualTo(200);
      assertThat(ended.header("Flowpipe-Consistency")).isEqualTo("timed-out");
    }
    assertThat(app.post("/v2/process-instances/search", waiting.replace("3s", "10ms")).status()).isEqualTo(200);
  }
}
