package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.embedded.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.batch.BatchOperationStore;
import dev.flowpipe.webapp.batch.BatchOperations;
import dev.flowpipe.webapp.batch.ItemAlreadyDone;
import dev.flowpipe.webapp.operations.EngineCommandException;
import dev.flowpipe.webapp.operations.EngineCommands;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Duration;
import java.time.Clock;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Batch operations over the fixture's read model on a real OpenSearch, with the search API of a running web app and
 * an engine of ours standing in for the gateway (it records the commands and answers as told): the items are the
 * filter's active instances or their active incidents, each carried out once, outcomes and counts stored, and a batch
 * interrupted by a stop taken up again by the next start without sending again what was done. The batch against the
 * real engine: {@code OperationsOnNodeTest}.
 */
@ExtendWith(SharedOpenSearch.class)
class BatchOperationsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** The fixture's active instances (i % 3 == 1). */
  private static final Set<Long> ACTIVE = Set.of(1001L, 1004L, 1007L, 1010L, 1013L, 1016L, 1019L, 1022L, 1025L,
      1028L);

  /** Short, so that a batch a stop left is taken up soon by the next start. */
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

  /** An engine that records the commands it is sent, each answered by {@code answer}. */
  static final class RecordingEngine implements EngineCommands {
    final List<Long> cancelled = new CopyOnWriteArrayList<>();
    final List<Long> resolved = new CopyOnWriteArrayList<>();
    final Map<Long, Integer> retries = new ConcurrentHashMap<>();
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
  }

  private static BatchOperations batches(EngineCommands engine, int parallelism) {
    return batches(engine, parallelism, 100);
  }

  private static BatchOperations batches(EngineCommands engine, int parallelism, int maxItems) {
    return new BatchOperations(new BatchOperationStore(readModel), search, engine, WrittenPositions.NONE,
        Clock.systemUTC(), Executors.newSingleThreadScheduledExecutor(), new SplittableRandom(),
        new BatchOperations.Settings(parallelism, maxItems, LEASE_EXPIRY, Duration.ofMillis(200)));
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
}
