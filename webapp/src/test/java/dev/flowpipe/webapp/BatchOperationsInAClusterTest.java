package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.embedded.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.BatchOperationsTest.RecordingEngine;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.batch.BatchOperationStore;
import dev.flowpipe.webapp.batch.BatchOperations;
import dev.flowpipe.webapp.operations.EngineCommands;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.readmodel.ReadModel;
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
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Several web apps sharing one store, as the nodes of a cluster do: each {@link BatchOperations} here is one web app
 * (its own store session, scheduler and engine of ours that records the commands it is sent), over the fixture's read
 * model on a real OpenSearch. One web app at a time runs a batch (its lease), another takes it up only once the lease
 * has expired, and batch keys never collide. The same against the real engine, with two Spring contexts and the
 * engine's own records as the oracle: {@code BatchCancelInAClusterTest} (benchmarks).
 */
@ExtendWith(SharedOpenSearch.class)
class BatchOperationsInAClusterTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** The fixture's active instances (i % 3 == 1). */
  private static final Set<Long> ACTIVE = Set.of(1001L, 1004L, 1007L, 1010L, 1013L, 1016L, 1019L, 1022L, 1025L,
      1028L);
  private static final Duration LEASE_EXPIRY = Duration.ofSeconds(2);

  private static TestWebapp app;
  private static SearchService search;
  private static ReadModel readModel;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    app = TestWebapp.start(Map.of("flowpipe.webapp.store.url", node.url(),
        "flowpipe.webapp.store.index-prefix", prefix));
    search = app.context().getBean(SearchService.class);
    readModel = app.context().getBean(ReadModel.class);
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  private static BatchOperations webapp(EngineCommands engine, int parallelism, Clock clock, RandomGenerator random) {
    return new BatchOperations(new BatchOperationStore(readModel), search, engine, WrittenPositions.NONE, clock,
        Executors.newSingleThreadScheduledExecutor(), random,
        new BatchOperations.Settings(parallelism, 100, LEASE_EXPIRY, Duration.ofMillis(200)));
  }

  private static BatchOperations webapp(EngineCommands engine, int parallelism) {
    return webapp(engine, parallelism, Clock.systemUTC(), new SplittableRandom());
  }

  private static String cancelAll(BatchOperations webapp) throws Exception {
    return (String) webapp.create(BatchOperations.Type.CANCEL_PROCESS_INSTANCE, JSON.readTree("{\"filter\": {}}"),
        "operator").get("batchOperationKey");
  }

  private static Map<String, Object> awaitEnd(BatchOperations webapp, String key) {
    return await().atMost(Duration.ofSeconds(30)).until(() -> webapp.batch(key).orElseThrow(),
        batch -> !"ACTIVE".equals(batch.get("state")));
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
  class BatchKeys {

    @Test
    void twoWebAppsCreatingBatchesAtTheSameInstantWithTheSameRandomBitsNeverCollide() throws Exception {
      // given two web apps whose clocks stand at the same instant and whose random bits are the same
      Clock sameInstant = Clock.fixed(Instant.parse("2026-11-27T12:00:00Z"), ZoneOffset.UTC);
      RandomGenerator sameBits = () -> 42L;
      RecordingEngine engine = new RecordingEngine(key -> { });
      int perWebapp = 4;
      try (BatchOperations a = webapp(engine, 2, sameInstant, sameBits);
          BatchOperations b = webapp(engine, 2, sameInstant, sameBits)) {
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
    void keysAreTimeOrderedDecimalNumbers() throws Exception {
      RecordingEngine engine = new RecordingEngine(key -> { });
      try (BatchOperations a = webapp(engine, 2)) {
        String first = cancelAll(a);
        String second = cancelAll(a);

        assertThat(first).matches("[1-9][0-9]{18}");
        assertThat(Long.parseLong(second)).isGreaterThan(Long.parseLong(first));
        awaitEnd(a, first);
        awaitEnd(a, second);
      }
    }
  }

  @Nested
  class Leases {

    @Test
    void aWebAppLookingForBatchesToTakeUpSendsNothingOfABatchAnotherHolds() throws Exception {
      // given web app A running a batch whose last items hang, and web app B looking for batches to take up
      CountDownLatch released = new CountDownLatch(1);
      RecordingEngine engineOfA = holdingFrom(1010L, released);
      RecordingEngine engineOfB = new RecordingEngine(key -> { });
      try (BatchOperations a = webapp(engineOfA, 1); BatchOperations b = webapp(engineOfB, 2)) {
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
      try (BatchOperations a = webapp(engineOfA, 1)) {
        BatchOperations b = webapp(new RecordingEngine(sentByB::add), 2);
        b.resume();
        String key = cancelAll(a);

        // when B stops and starts again mid-batch
        await().atMost(Duration.ofSeconds(10)).until(() -> engineOfA.cancelled.size() >= 2);
        b.close();
        try (BatchOperations restarted = webapp(new RecordingEngine(sentByB::add), 2)) {
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
      BatchOperations a = webapp(engineOfA, 1);
      String key = cancelAll(a);
      try (BatchOperations b = webapp(engineOfB, 2)) {
        b.resume();
        await().atMost(Duration.ofSeconds(10)).until(() -> engineOfA.cancelled.size() == 4);

        // when A stops (its lease left to expire)
        Instant stopped = Instant.now();
        a.close();

        // then B takes the batch up once the lease has not moved for its expiry, and sends only what A had not done
        assertThat(awaitEnd(b, key)).containsEntry("state", "COMPLETED")
            .containsEntry("operationsCompletedCount", ACTIVE.size());
        Instant firstByB = sentByB.values().stream().min(Instant::compareTo).orElseThrow();
        // A renewed at most a third of the expiry before its stop; B waits a whole expiry after it last saw it move
        assertThat(Duration.between(stopped, firstByB)).isGreaterThanOrEqualTo(LEASE_EXPIRY.multipliedBy(2)
            .dividedBy(3));
        assertThat(engineOfB.cancelled).doesNotContain(1001L, 1004L, 1007L).contains(1010L)
            .hasSize(ACTIVE.size() - 3);
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
