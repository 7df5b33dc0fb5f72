package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.api.NotFoundException;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.batch.BatchOperationStore;
import dev.flowpipe.webapp.batch.BatchOperations;
import dev.flowpipe.webapp.batch.ItemAlreadyDone;
import dev.flowpipe.webapp.cluster.Topology;
import dev.flowpipe.webapp.operations.EngineCommandException;
import dev.flowpipe.webapp.operations.EngineCommands;
import dev.flowpipe.webapp.operations.InstanceDeletion;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Batch operations over the fixture's read model on a real OpenSearch, with the search API of a running web app and
 * an engine of ours standing in for the gateway (it records the commands and answers as told): the items are the
 * filter's active instances or their active incidents, each carried out once, outcomes and counts stored, and a batch
 * interrupted by a stop taken up again by the next start without sending again what was done. The batch against the
 * real engine: {@code OperationsOnNodeTest}.
 *
 * <p>Several web apps sharing one store, as the nodes of a cluster do, are several {@link BatchOperations} here (each
 * with its own store session, scheduler and engine of ours): one web app at a time runs a batch (its lease), another
 * takes it up only once the lease has expired, and batch keys never collide. The same against the real engine, with two
 * Spring contexts and the engine's own records as the oracle: {@code BatchCancelInAClusterTest} (benchmarks).
 */
@ExtendWith(SharedOpenSearch.class)
class BatchOperationsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  /** The fixture's active instances (i % 3 == 1). */
  private static final Set<Long> ACTIVE = Set.of(1001L, 1004L, 1007L, 1010L, 1013L, 1016L, 1019L, 1022L, 1025L,
      1028L);

  /** Short, so that a batch a stop left is taken up soon by the next start. */
  private static final Duration LEASE_EXPIRY = Duration.ofSeconds(2);

  private static TestWebapp app;
  private static String storeUrl;
  private static SearchService search;
  private static ReadModel readModel;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    storeUrl = node.url();
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(),
        "flowpipe.store.index-prefix", prefix));
    search = app.context().getBean(SearchService.class);
    readModel = app.context().getBean(ReadModel.class);
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  /** An engine that records the commands it is sent, each answered by {@code answer}. */
  static final class RecordingEngine implements EngineCommands {
    final List<Long> cancelled = new CopyOnWriteArrayList<>();
    final List<Long> resolved = new CopyOnWriteArrayList<>();
    final Map<Long, Integer> retries = new ConcurrentHashMap<>();
    final Map<Long, List<Migration>> migrations = new ConcurrentHashMap<>();
    final Map<Long, List<Modification>> modifications = new ConcurrentHashMap<>();
    private final LongConsumer answer;

    RecordingEngine(LongConsumer answer) {
      this.answer = answer;
    }

    @Override
    public void cancelProcessInstance(long key) {
      cancelled.add(key);
      answer.accept(key);
    }

    @Override
    public void resolveIncident(long key) {
      resolved.add(key);
      answer.accept(key);
    }

    @Override
    public void updateJob(long jobKey, Integer newRetries, Duration timeout) {
      retries.put(jobKey, newRetries);
    }

    @Override
    public void setVariables(long key, Map<String, Object> variables, boolean local) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CreatedInstance createProcessInstance(InstanceToCreate instance) {
      throw new UnsupportedOperationException();
    }

    @Override
    public PublishedMessage publishMessage(MessageToPublish message) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void modifyProcessInstance(long processInstanceKey, Modification modification) {
      modifications.computeIfAbsent(processInstanceKey, k -> new CopyOnWriteArrayList<>()).add(modification);
      answer.accept(processInstanceKey);
    }

    @Override
    public void migrateProcessInstance(long processInstanceKey, Migration migration) {
      migrations.computeIfAbsent(processInstanceKey, k -> new CopyOnWriteArrayList<>()).add(migration);
      answer.accept(processInstanceKey);
    }

    @Override
    public Topology topology() {
      throw new UnsupportedOperationException();
    }
  }

  private static BatchOperations batches(EngineCommands engine, int parallelism) {
    return batches(engine, parallelism, 100);
  }

  private static BatchOperations batches(EngineCommands engine, int parallelism, int maxItems) {
    return batches(engine, parallelism, maxItems, Clock.systemUTC(), new SplittableRandom());
  }

  private static BatchOperations batches(EngineCommands engine, int parallelism, Clock clock,
      RandomGenerator random) {
    return batches(engine, parallelism, 100, clock, random);
  }

  /** One web app's batch operations: its own store session, scheduler, clock and random bits. */
  private static BatchOperations batches(EngineCommands engine, int parallelism, int maxItems, Clock clock,
      RandomGenerator random) {
    return new BatchOperations(new BatchOperationStore(readModel), search, engine,
        new InstanceDeletion(readModel, clock), WrittenPositions.NONE, clock,
        Executors.newSingleThreadScheduledExecutor(), random,
        new BatchOperations.Settings(parallelism, maxItems, LEASE_EXPIRY, Duration.ofMillis(200)));
  }

  private static String cancelAll(BatchOperations webapp) throws Exception {
    return (String) webapp.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE, JSON.readTree("{\"filter\": {}}"),
        "operator").get("batchOperationKey");
  }

  private static Map<String, Object> awaitEnd(BatchOperations batches, String key) {
    return await().atMost(Duration.ofSeconds(30)).until(() -> batches.batch(key).orElseThrow(),
        batch -> !"ACTIVE".equals(batch.get("state")));
  }

  @Test
  void cancelsEveryActiveInstanceTheFilterMatchesOnce() throws Exception {
    RecordingEngine engine = new RecordingEngine(key -> { });
    try (BatchOperations batches = batches(engine, 4)) {
      Map<String, Object> batch = batches.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE,
          JSON.readTree("{\"filter\": {}}"), "operator");

      assertThat(batch.get("operationsTotalCount")).isEqualTo(ACTIVE.size());
      Map<String, Object> ended = awaitEnd(batches, (String) batch.get("batchOperationKey"));
      assertThat(ended).containsEntry("state", "COMPLETED").containsEntry("operationsCompletedCount", ACTIVE.size())
          .containsEntry("operationsFailedCount", 0);
      assertThat(engine.cancelled).containsExactlyInAnyOrderElementsOf(ACTIVE);
      assertThat(batches.items((String) batch.get("batchOperationKey"), "COMPLETED", 0, 100).total())
          .isEqualTo(ACTIVE.size());
    }
  }

  @Test
  void theIndexTheBatchesAreKeptInIsGreenOnASingleStoreNode() throws Exception {
    RecordingEngine engine = new RecordingEngine(key -> { });
    try (BatchOperations batches = batches(engine, 4)) {
      awaitEnd(batches, cancelAll(batches));
    }

    // a replica a single node cannot hold left the store yellow for good, and the embedded store waited out its
    // green timeout (30 s) at every restart
    String health = HTTP.send(HttpRequest.newBuilder(URI.create(storeUrl + "/_cluster/health/"
        + readModel.indexPrefix() + "*?level=indices")).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    var indices = JSON.readTree(health).path("indices");
    assertThat(indices.properties()).as("the indices under the prefix: %s", health)
        .anySatisfy(index -> assertThat(index.getKey()).contains("batch"))
        .allSatisfy(index -> assertThat(index.getValue().path("status").asText()).as(index.getKey())
            .isEqualTo("green"));
  }

  @Test
  void anInstanceTheEngineNoLongerKnowsIsSkippedAndARefusalFails() throws Exception {
    RecordingEngine engine = new RecordingEngine(key -> {
      if (key == 1004L) {
        throw new EngineCommandException(EngineCommandException.Kind.NOT_FOUND, "no such instance");
      }
      if (key == 1007L) {
        throw new EngineCommandException(EngineCommandException.Kind.REJECTED, "not now");
      }
    });
    try (BatchOperations batches = batches(engine, 2)) {
      String key = (String) batches.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE,
          JSON.readTree("{\"filter\": {\"processDefinitionId\": \"order\"}}"), "operator").get("batchOperationKey");

      Map<String, Object> ended = awaitEnd(batches, key);
      assertThat(ended).containsEntry("state", "PARTIALLY_COMPLETED").containsEntry("operationsFailedCount", 1);
      var failed = batches.items(key, "FAILED", 0, 10).hits();
      assertThat(failed).singleElement().satisfies(item -> {
        assertThat(item.source()).containsEntry("itemKey", "1007").containsEntry("errorMessage", "not now");
      });
      assertThat(batches.items(key, "SKIPPED", 0, 10).hits()).singleElement()
          .satisfies(item -> assertThat(item.source()).containsEntry("itemKey", "1004"));
    }
  }

  @Test
  void anItemThatFoundTheEngineUnreachableStaysActiveAndIsSentAgain() throws Exception {
    Set<Long> refusedOnce = ConcurrentHashMap.newKeySet();
    RecordingEngine engine = new RecordingEngine(key -> {
      if (key == 1004L && refusedOnce.add(key)) { // as a stopping node's gateway answers what is in flight
        throw new EngineCommandException(EngineCommandException.Kind.UNAVAILABLE, "gateway closing");
      }
    });
    try (BatchOperations batches = batches(engine, 2)) {
      String key = (String) batches.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE,
          JSON.readTree("{\"filter\": {\"processDefinitionId\": \"order\"}}"), "operator").get("batchOperationKey");

      assertThat(awaitEnd(batches, key)).containsEntry("state", "COMPLETED").containsEntry("operationsFailedCount", 0);
      assertThat(engine.cancelled).filteredOn(k -> k == 1004L).hasSize(2);
      assertThat(batches.items(key, "COMPLETED", 0, 100).hits())
          .anySatisfy(item -> assertThat(item.source()).containsEntry("itemKey", "1004"));
    }
  }

  @Test
  void anItemTheEngineNoLongerKnowsWasDoneWhereTheReadModelShowsItCancelledOrResolved() {
    ItemAlreadyDone alreadyDone = new ItemAlreadyDone(search, WrittenPositions.NONE, Duration.ofSeconds(1));

    assertThat(alreadyDone.test(BatchOperations.Type.CANCEL_PROCESS_INSTANCE, 1002L)).as("CANCELED").isTrue();
    assertThat(alreadyDone.test(BatchOperations.Type.CANCEL_PROCESS_INSTANCE, 1000L)).as("COMPLETED").isFalse();
    assertThat(alreadyDone.test(BatchOperations.Type.CANCEL_PROCESS_INSTANCE, 1001L)).as("ACTIVE").isFalse();
    assertThat(alreadyDone.test(BatchOperations.Type.CANCEL_PROCESS_INSTANCE, 999_999L)).as("unknown").isFalse();
    assertThat(alreadyDone.test(BatchOperations.Type.RESOLVE_INCIDENT, 7003L)).as("RESOLVED").isTrue();
    assertThat(alreadyDone.test(BatchOperations.Type.RESOLVE_INCIDENT, 7001L)).as("ACTIVE incident").isFalse();
  }

  @Test
  void resolvesTheActiveIncidentsOfTheMatchingInstances() throws Exception {
    RecordingEngine engine = new RecordingEngine(key -> { });
    try (BatchOperations batches = batches(engine, 2)) {
      String key = (String) batches.create(BatchOperations.Type.RESOLVE_INCIDENT,
          JSON.readTree("{\"filter\": {}}"), "operator").get("batchOperationKey");

      assertThat(awaitEnd(batches, key)).containsEntry("state", "COMPLETED");
      // 7003 is resolved already; a job incident's retry (IncidentResolution) is shown on a real engine
      assertThat(engine.resolved).containsExactlyInAnyOrder(7001L, 7002L);
    }
  }

  @Test
  void aBatchStoppedHalfWayGoesOnAtTheNextStartWithoutRepeatingWhatWasDone() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    RecordingEngine first = new RecordingEngine(key -> {
      if (key >= 1010L) { // the first three items go through, the fourth hangs until the stop
        try {
          never.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException("stopped", e);
        }
      }
    });
    String key;
    BatchOperations before = batches(first, 1);
    key = (String) before.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE, JSON.readTree("{\"filter\": {}}"),
        "operator").get("batchOperationKey");
    await().atMost(Duration.ofSeconds(30)).until(() -> first.cancelled.size() == 4);
    before.close();
    assertThat(before.batch(key).orElseThrow()).containsEntry("state", "ACTIVE");

    RecordingEngine second = new RecordingEngine(k -> { });
    try (BatchOperations after = batches(second, 2)) {
      after.resume();

      Map<String, Object> ended = awaitEnd(after, key);
      assertThat(ended).containsEntry("state", "COMPLETED").containsEntry("operationsCompletedCount", ACTIVE.size());
      assertThat(second.cancelled).doesNotContain(1001L, 1004L, 1007L).contains(1010L)
          .hasSize(ACTIVE.size() - 3);
    }
  }

  @Test
  void aFilterMatchingMoreThanTheLimitIsRefusedBeforeAnythingIsStored() {
    try (BatchOperations batches = batches(new RecordingEngine(k -> { }), 1, 5)) {
      assertThatThrownBy(() -> batches.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE,
          JSON.readTree("{\"filter\": {}}"), "operator"))
          .isInstanceOf(BadRequestException.class).hasMessageContaining("more than 5");
      assertThatThrownBy(() -> batches.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE,
          JSON.readTree("{\"filter\": {\"state\": \"NOPE\"}}"), "operator"))
          .isInstanceOf(BadRequestException.class);
      assertThatThrownBy(() -> batches.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE, JSON.readTree("{}"),
          "operator")).isInstanceOf(BadRequestException.class).hasMessageContaining("filter");
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An engine whose commands for {@code from} and above hang until {@code released} (or the web app stops). */
  private static RecordingEngine holdingFrom(long from, CountDownLatch released) {
    return new RecordingEngine(key -> {
      if (key >= from) {
        try {
          released.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException("stopped", e);
        }
      }
    });
  }

  @Nested
  class KeysAcrossWebApps {

    @Test
    void twoWebAppsCreatingBatchesAtTheSameInstantWithTheSameRandomBitsNeverCollide() throws Exception {
      // given two web apps whose clocks stand at the same instant and whose random bits are the same
      Clock sameInstant = Clock.fixed(Instant.parse("2026-11-27T12:00:00Z"), ZoneOffset.UTC);
      RandomGenerator sameBits = () -> 42L;
      RecordingEngine engine = new RecordingEngine(key -> { });
      int perWebapp = 4;
      try (BatchOperations a = batches(engine, 2, sameInstant, sameBits);
          BatchOperations b = batches(engine, 2, sameInstant, sameBits)) {
        // when both create batches at once
        var pool = Executors.newFixedThreadPool(2);
        List<Future<String>> created = new ArrayList<>();
        for (int i = 0; i < perWebapp; i++) {
          created.add(pool.submit(() -> cancelAll(a)));
          created.add(pool.submit(() -> cancelAll(b)));
        }
        List<String> keys = new ArrayList<>();
        for (Future<String> key : created) {
          keys.add(key.get());
        }
        pool.shutdown();

        // then every batch has a key of its own, and its own items, each carried out once
        assertThat(new HashSet<>(keys)).hasSize(2 * perWebapp);
        for (String key : keys) {
          assertThat(awaitEnd(a, key)).containsEntry("state", "COMPLETED")
              .containsEntry("operationsTotalCount", ACTIVE.size())
              .containsEntry("operationsCompletedCount", ACTIVE.size());
          assertThat(a.items(key, null, 0, 100).hits()).hasSize(ACTIVE.size())
              .allSatisfy(item -> assertThat(item.source()).containsEntry("batchOperationKey", key));
        }
        assertThat(engine.cancelled).hasSize(2 * perWebapp * ACTIVE.size());
      }
    }

    @Test
    void aKeyIsADecimalNumberCarryingItsCreationTimeInItsHighBits() throws Exception {
      RecordingEngine engine = new RecordingEngine(key -> { });
      try (BatchOperations a = batches(engine, 2)) {
        long before = System.currentTimeMillis();
        String key = cancelAll(a);
        long after = System.currentTimeMillis();

        assertThat(key).matches("[1-9][0-9]{18}");
        assertThat(Long.parseLong(key) >>> 20).as("milliseconds").isBetween(before, after);
        awaitEnd(a, key);
      }
    }
  }

  @Nested
  class OneWebAppAtATime {

    @Test
    void aWebAppLookingForBatchesToTakeUpSendsNothingOfABatchAnotherHolds() throws Exception {
      // given web app A running a batch whose last items hang, and web app B looking for batches to take up
      CountDownLatch released = new CountDownLatch(1);
      RecordingEngine engineOfA = holdingFrom(1010L, released);
      RecordingEngine engineOfB = new RecordingEngine(key -> { });
      try (BatchOperations a = batches(engineOfA, 1); BatchOperations b = batches(engineOfB, 2)) {
        String key = cancelAll(a);
        b.resume();

        // when A holds it for twice the lease expiry (renewing it), then goes on
        await().atMost(Duration.ofSeconds(10)).until(() -> engineOfA.cancelled.size() == 4);
        await().during(LEASE_EXPIRY.multipliedBy(2)).atMost(LEASE_EXPIRY.multipliedBy(3))
            .until(() -> engineOfB.cancelled.isEmpty());
        released.countDown();

        // then A carried out every item once, and B sent nothing
        assertThat(awaitEnd(a, key)).containsEntry("state", "COMPLETED");
        assertThat(engineOfA.cancelled).containsExactlyInAnyOrderElementsOf(ACTIVE);
        assertThat(engineOfB.cancelled).isEmpty();
      }
    }

    @Test
    void aWebAppRestartedMidBatchSendsNothingOfIt() throws Exception {
      // given web app A running a batch slowly, one command at a time
      RecordingEngine engineOfA = new RecordingEngine(key -> pause(Duration.ofMillis(400)));
      List<Long> sentByB = new CopyOnWriteArrayList<>();
      try (BatchOperations a = batches(engineOfA, 1)) {
        BatchOperations b = batches(new RecordingEngine(sentByB::add), 2);
        b.resume();
        String key = cancelAll(a);

        // when B stops and starts again mid-batch
        await().atMost(Duration.ofSeconds(10)).until(() -> engineOfA.cancelled.size() >= 2);
        b.close();
        try (BatchOperations restarted = batches(new RecordingEngine(sentByB::add), 2)) {
          restarted.resume();
          assertThat(a.batch(key).orElseThrow()).as("restarted mid-batch").containsEntry("state", "ACTIVE");

          // then A ends it having sent each command once, and B sent none
          assertThat(awaitEnd(a, key)).containsEntry("state", "COMPLETED");
        }
      }
      assertThat(engineOfA.cancelled).containsExactlyInAnyOrderElementsOf(ACTIVE);
      assertThat(sentByB).isEmpty();
    }

    @Test
    void aBatchWhoseHolderStoppedIsTakenUpByAnotherWebAppOnlyAfterItsLeaseExpired() throws Exception {
      // given web app A running a batch whose fourth item hangs, and web app B looking for batches to take up
      RecordingEngine engineOfA = holdingFrom(1010L, new CountDownLatch(1));
      Map<Long, Instant> sentByB = new ConcurrentHashMap<>();
      RecordingEngine engineOfB = new RecordingEngine(key -> sentByB.putIfAbsent(key, Instant.now()));
      BatchOperations a = batches(engineOfA, 1);
      String key = cancelAll(a);
      try (BatchOperations b = batches(engineOfB, 2)) {
        b.resume();
        await().atMost(Duration.ofSeconds(10)).until(() -> engineOfA.cancelled.size() == 4);

        // when A stops (its lease left to expire)
        Instant stopped = Instant.now();
        a.close();

        // then B takes the batch up once the lease has not moved for its expiry, and sends only what A had not done
        assertThat(awaitEnd(b, key)).containsEntry("state", "COMPLETED")
            .containsEntry("operationsCompletedCount", ACTIVE.size());
        Instant firstByB = sentByB.values().stream().min(Instant::compareTo).orElseThrow();
        // A renewed at most a sixth of the expiry (and a store write) before its stop; B waits a whole expiry after it
        // last saw it move
        assertThat(Duration.between(stopped, firstByB)).isGreaterThanOrEqualTo(LEASE_EXPIRY.multipliedBy(2)
            .dividedBy(3));
        assertThat(engineOfB.cancelled).doesNotContain(1001L, 1004L, 1007L).contains(1010L)
            .hasSize(ACTIVE.size() - 3);
      }
    }
  }

  @Nested
  class SuspendResumeAndCancel {

    @Test
    void aSuspendedBatchSendsNothingMoreUntilResumedAndThenEachItemOnce() throws Exception {
      CountDownLatch released = new CountDownLatch(1);
      RecordingEngine engine = holdingFrom(1010L, released);
      try (BatchOperations batches = batches(engine, 1)) {
        String key = cancelAll(batches);
        await().atMost(Duration.ofSeconds(30)).until(() -> engine.cancelled.size() == 4); // the fourth hangs

        assertThat(batches.suspend(key)).containsEntry("state", "SUSPENDED");
        released.countDown();

        // the page in flight ends, and then nothing more is sent while suspended
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(10))
            .until(() -> engine.cancelled.size() == 4);
        assertThat(batches.batch(key).orElseThrow()).containsEntry("state", "SUSPENDED")
            .containsEntry("operationsCompletedCount", 4);

        batches.resumeBatch(key);
        assertThat(awaitEnd(batches, key)).containsEntry("state", "COMPLETED")
            .containsEntry("operationsCompletedCount", ACTIVE.size());
        assertThat(engine.cancelled).containsExactlyInAnyOrderElementsOf(ACTIVE);
      }
    }

    @Test
    void aCancelledBatchEndsCanceledWithItsOpenItemsCanceledAndNothingMoreSent() throws Exception {
      CountDownLatch released = new CountDownLatch(1);
      RecordingEngine engine = holdingFrom(1010L, released);
      try (BatchOperations batches = batches(engine, 1)) {
        String key = cancelAll(batches);
        await().atMost(Duration.ofSeconds(30)).until(() -> engine.cancelled.size() == 4);

        batches.cancel(key);
        released.countDown();

        await().atMost(Duration.ofSeconds(30)).until(() -> batches.items(key, "ACTIVE", 0, 0).total() == 0);
        assertThat(engine.cancelled).hasSize(4);
        assertThat(batches.items(key, "COMPLETED", 0, 0).total()).isEqualTo(4);
        assertThat(batches.items(key, "CANCELED", 0, 0).total()).isEqualTo(ACTIVE.size() - 4);
        assertThat(await().atMost(Duration.ofSeconds(10)).until(() -> batches.batch(key).orElseThrow(),
            batch -> Boolean.TRUE.equals(batch.get("settled"))))
            .containsEntry("state", "CANCELED").containsEntry("operationsCompletedCount", 4)
            .containsKey("endDate");
      }
    }

    @Test
    void aSuspendedBatchCancelledFromAnotherWebAppEndsWithItsOpenItemsCanceledAndNothingMoreSent() throws Exception {
      CountDownLatch released = new CountDownLatch(1);
      RecordingEngine engine = holdingFrom(1004L, released);
      try (BatchOperations batches = batches(engine, 1)) {
        String key = cancelAll(batches);
        await().atMost(Duration.ofSeconds(30)).until(() -> engine.cancelled.size() == 2);
        batches.suspend(key);
        released.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> batches.items(key, "COMPLETED", 0, 0).total() == 2);

        RecordingEngine otherEngine = new RecordingEngine(k -> { });
        try (BatchOperations other = batches(otherEngine, 1)) {
          other.cancel(key);
          await().atMost(Duration.ofSeconds(30)).until(() -> batches.items(key, "CANCELED", 0, 0).total()
              == ACTIVE.size() - 2);
          assertThat(otherEngine.cancelled).isEmpty();
        }
        assertThat(engine.cancelled).hasSize(2);
      }
    }

    @Test
    void aChangeItsStateDoesNotAllowIsAConflictAndAnUnknownBatchIsNotFound() throws Exception {
      try (BatchOperations batches = batches(new RecordingEngine(k -> { }), 4)) {
        String key = cancelAll(batches);
        awaitEnd(batches, key);

        assertThatThrownBy(() -> batches.suspend(key)).isInstanceOf(BatchOperations.StateConflict.class)
            .hasMessageContaining("is COMPLETED");
        assertThatThrownBy(() -> batches.resumeBatch(key)).isInstanceOf(BatchOperations.StateConflict.class);
        assertThatThrownBy(() -> batches.cancel(key)).isInstanceOf(BatchOperations.StateConflict.class);
        assertThatThrownBy(() -> batches.suspend("123")).isInstanceOf(NotFoundException.class)
            .hasMessageContaining("123");
      }
    }
  }

  @Nested
  class MigrationAndModification {

    @Test
    void aBatchMigrationSendsThePlanToEveryActiveInstanceOnce() throws Exception {
      RecordingEngine engine = new RecordingEngine(key -> { });
      try (BatchOperations batches = batches(engine, 4)) {
        Map<String, Object> batch = batches.create(BatchOperations.Type.MIGRATE_PROCESS_INSTANCE, JSON.readTree("""
            {"filter": {"processDefinitionKey": "1"}, "migrationPlan": {"targetProcessDefinitionKey": "2",
             "mappingInstructions": [{"sourceElementId": "task", "targetElementId": "task2"}]}}"""), "operator");

        assertThat(awaitEnd(batches, (String) batch.get("batchOperationKey"))).containsEntry("state", "COMPLETED");
        // the fixture's active instances of definition 1: i < 10 with i % 3 == 1
        assertThat(engine.migrations).containsOnlyKeys(1001L, 1004L, 1007L);
        assertThat(engine.migrations.values()).allSatisfy(sent -> assertThat(sent).containsExactly(
            new EngineCommands.Migration(2, List.of(new EngineCommands.ElementMapping("task", "task2")))));
      }
    }

    @Test
    void aBatchModificationMovesTheActiveSourceElementsAndSkipsInstancesWithoutOne() throws Exception {
      RecordingEngine engine = new RecordingEngine(key -> { });
      try (BatchOperations batches = batches(engine, 4)) {
        String key = (String) batches.create(BatchOperations.Type.MODIFY_PROCESS_INSTANCE, JSON.readTree("""
            {"filter": {"processInstanceKey": {"$in": ["1001", "1004"]}},
             "moveInstructions": [{"sourceElementId": "task", "targetElementId": "next"}]}"""), "operator")
            .get("batchOperationKey");

        assertThat(awaitEnd(batches, key)).containsEntry("state", "COMPLETED");
        assertThat(engine.modifications).containsOnlyKeys(1001L);
        assertThat(engine.modifications.get(1001L)).containsExactly(new EngineCommands.Modification(
            List.of(new EngineCommands.Activation("next", -1, List.of())), List.of(5002L)));
        assertThat(batches.items(key, "SKIPPED", 0, 10).hits()).singleElement()
            .satisfies(item -> assertThat(item.source()).containsEntry("itemKey", "1004"));
      }
    }

    @Test
    void aBadPlanIsRefusedNamingItsPartBeforeAnythingIsStored() throws Exception {
      try (BatchOperations batches = batches(new RecordingEngine(k -> { }), 1)) {
        assertThatThrownBy(() -> batches.create(BatchOperations.Type.MODIFY_PROCESS_INSTANCE, JSON.readTree(
            "{\"filter\": {}, \"moveInstructions\": [{\"sourceElementId\": \"task\"}]}"), "operator"))
            .isInstanceOfSatisfying(BadRequestException.class,
                e -> assertThat(e.part()).isEqualTo("moveInstructions[0].targetElementId"));
        assertThatThrownBy(() -> batches.create(BatchOperations.Type.MIGRATE_PROCESS_INSTANCE, JSON.readTree(
            "{\"filter\": {}, \"migrationPlan\": {\"targetProcessDefinitionKey\": \"x\"}}"), "operator"))
            .isInstanceOfSatisfying(BadRequestException.class,
                e -> assertThat(e.part()).isEqualTo("migrationPlan.targetProcessDefinitionKey"));
      }
    }
  }

  private static void pause(Duration duration) {
    try {
      Thread.sleep(duration.toMillis()); // the test's engine is slow on purpose
    } catch (InterruptedException e) {
      throw new IllegalStateException("stopped", e);
    }
  }
}
