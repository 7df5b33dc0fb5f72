package dev.flowpipe.schema.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.TestClock;
import dev.flowpipe.schema.deletion.DeletedInstances;
import dev.flowpipe.schema.index.AuditLogIndex;
import dev.flowpipe.schema.index.BatchOperationIndex;
import dev.flowpipe.schema.index.IndexLayout;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.StoreProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sweep against a real OpenSearch, with documents written as the exporter writes them: through each period's
 * entity names, versioned by position. Periods of 10 s, 30 s kept, on a clock the test drives.
 */
@ExtendWith(SharedOpenSearch.class)
class RetentionSweepTest {

  private static final Duration PERIOD = Duration.ofSeconds(10);
  private static final Duration KEEP = Duration.ofSeconds(30);
  private static final int PARTITION = 1;

  private final SearchStore store;
  private final TestClock clock = new TestClock();
  private final String prefix = SharedOpenSearch.uniquePrefix();
  private final BucketTable table = new BucketTable(PERIOD);
  private BucketTableStore tableStore;
  private PeriodIndices periods;
  private RetentionSweep sweep;
  private long nextKey = 1_000;
  private long position = 0;

  RetentionSweepTest(SearchStore store) {
    this.store = store;
  }

  @BeforeEach
  void schema() {
    new SchemaManager(store, prefix, "1s").ensureSchema();
    tableStore = new BucketTableStore(store, prefix);
    tableStore.ensureIndex();
    periods = new PeriodIndices(store, prefix, IndexLayout.singleNode("1s"));
    sweep = new RetentionSweep(store, prefix, new RetentionSettings(KEEP, PERIOD, Duration.ofSeconds(1)), clock);
  }

  @Nested
  class AWholePeriod {

    @Test
    void isDeletedOnceEveryInstanceInItEndedBeforeTheCutoffAndLiveSearchesAnswerTheSame() {
      long old = startInstance(3);
      finish(old);
      clock.advance(PERIOD);
      long live = startInstance(3);
      exportedUpTo(position);
      List<Map<String, Object>> liveBefore = variablesOf(live);

      clock.advance(KEEP);
      RetentionStatus status = sweep.sweep();

      assertThat(status.deleted()).containsExactly(periodOf(old));
      assertThat(store.indexExists(periodOf(old).indexName(prefix))).isFalse();
      assertThat(variablesOf(old)).isEmpty();
      assertThat(variablesOf(live)).isEqualTo(liveBefore).hasSize(3);
      assertThat(new BucketTableStore(store, prefix).read(PERIOD).state(periodOf(old)))
          .isEqualTo(BucketTable.State.DELETED);
    }

    @Test
    void isNotDeletedBeforeItsPeriodEndedMoreThanTheRetentionAgo() {
      long instance = startInstance(1);
      finish(instance);
      exportedUpTo(position);

      clock.advance(KEEP);
      RetentionStatus status = sweep.sweep();

      assertThat(status.deleted()).isEmpty();
      assertThat(variablesOf(instance)).hasSize(1);
      assertThat(status.nextDeletion()).contains(periodOf(instance).end().plus(KEEP));
    }

    @Test
    void isKeptWhileAPartitionHasNotExportedPastItsDocuments() {
      long instance = startInstance(1);
      clock.advance(PERIOD);
      startInstance(0); // the next period opens: the instance's period gets no new instance
      finish(instance);
      exportedUpTo(position - 1);

      clock.advance(KEEP.plus(Duration.ofSeconds(1)));
      RetentionStatus status = sweep.sweep();

      assertThat(status.deleted()).isEmpty();
      assertThat(status.pinned()).containsExactly(periodOf(instance));
      assertThat(variablesOf(instance)).hasSize(1);
    }

    @Test
    void isKeptWhileItsInstancesAreNotWrittenYetThoughItsIndexLooksEmptyAndIsDeletedOnceTheyEnded() {
      // an exporter behind: the period's boundary and index are durable, its instance's documents not yet written
      long unwritten = nextKey++;
      long createdAt = ++position;
      openPeriod(unwritten, createdAt);
      Period period = periodOf(unwritten);
      clock.advance(PERIOD);
      long next = nextKey++;
      openPeriod(next, ++position);
      exportedUpTo(createdAt - 1);

      clock.advance(KEEP.plus(Duration.ofSeconds(1)));
      RetentionStatus behind = sweep.sweep();

      assertThat(behind.deleted()).as("deleted while its instance was on its way").isEmpty();
      assertThat(behind.pinned()).contains(period);
      assertThat(store.indexExists(period.indexName(prefix))).isTrue();

      // the exporter catches up: the instance arrives, runs and ends; once it ended before the cutoff, the period goes
      write(period.entityName(prefix, ReadModelIndex.PROCESS_INSTANCE), String.valueOf(unwritten),
          instanceDocument(unwritten, null));
      finish(unwritten);
      exportedUpTo(position);
      clock.advance(KEEP.plus(Duration.ofSeconds(1)));

      assertThat(sweep.sweep().deleted()).containsExactly(period);
    }

    @Test
    void markedDeletingBeforeACrashIsDeletedByTheNextSweepAndASecondSweepChangesNothing() {
      long instance = startInstance(2);
      finish(instance);
      exportedUpTo(position);
      clock.advance(PERIOD.plus(KEEP));
      // what a sweep killed between its mark and the index deletion leaves behind
      tableStore.write(periodOf(instance), BucketTable.State.DELETING);

      RetentionStatus first = sweep.sweep();
      RetentionStatus second = sweep.sweep();

      assertThat(first.deleted()).containsExactly(periodOf(instance));
      assertThat(store.indexExists(periodOf(instance).indexName(prefix))).isFalse();
      assertThat(second.deleted()).isEmpty();
      assertThat(second.instancesPruned()).isZero();
    }
  }

  @Nested
  class APinnedPeriod {

    @Test
    void keepsAnInstanceRunningLongerThanTheRetentionWholeAndPrunesItsExpiredNeighbours() {
      long longRunner = startInstance(4);
      long neighbour = expiredNeighbour();
      List<Map<String, Object>> longRunnerBefore = variablesOf(longRunner);

      RetentionStatus status = sweep.sweep();

      assertThat(status.pinned()).containsExactly(periodOf(longRunner));
      assertThat(status.instancesPruned()).isEqualTo(1);
      assertThat(variablesOf(longRunner)).isEqualTo(longRunnerBefore).hasSize(4);
      assertThat(instance(longRunner)).isNotEmpty();
      assertThat(variablesOf(neighbour)).isEmpty();
      assertThat(instance(neighbour)).isEmpty();
    }

    @Test
    void aSweepStoppedBetweenAnInstancesDocumentsAndItsInstanceDocumentLeavesItForTheNextSweepToFinish(
        EmbeddedSearchStore opensearch) throws Exception {
      long longRunner = startInstance(2);
      long neighbour = expiredNeighbour();
      List<Map<String, Object>> longRunnerBefore = variablesOf(longRunner);
      String deleteByQuery = "/" + periodOf(neighbour).indexName(prefix) + "/_delete_by_query";
      ExecutorService stopped = Executors.newSingleThreadExecutor();
      try (StoreProxy proxy = new StoreProxy(opensearch.url(), null, null);
          SearchStore throughProxy = SearchStoreConnector.connect(StoreConnection.of(proxy.url()))) {
        RetentionSweep sweepThroughProxy = new RetentionSweep(throughProxy, prefix,
            new RetentionSettings(KEEP, PERIOD, Duration.ofSeconds(1)), clock);
        StoreProxy.HeldRequest documents = proxy.holdNext("POST", deleteByQuery);
        Future<RetentionStatus> run = stopped.submit(sweepThroughProxy::sweep);
        assertThat(documents.awaitArrival()).as("the deletion of the neighbour's documents").isTrue();
        StoreProxy.HeldRequest instanceDocument = proxy.holdNext("POST", deleteByQuery);
        documents.release();
        assertThat(instanceDocument.awaitArrival()).as("the deletion of the neighbour's instance document").isTrue();

        // stopped there: the store never gets the instance's deletion, nor anything after it
        proxy.down(true);
        instanceDocument.fail();
        assertThatThrownBy(() -> run.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
      } finally {
        stopped.shutdownNow();
      }
      assertThat(variablesOf(neighbour)).as("the neighbour's variables, deleted before the stop").isEmpty();
      assertThat(instance(neighbour)).as("the neighbour's instance document, left for the next sweep").hasSize(1);

      RetentionStatus next = sweep.sweep();

      assertThat(next.instancesPruned()).isEqualTo(1);
      assertThat(instance(neighbour)).isEmpty();
      assertThat(variablesOf(longRunner)).isEqualTo(longRunnerBefore);
      assertThat(instance(longRunner)).hasSize(1);
    }

    /** A finished instance (2 variables) beside the long-runner, exported, and the clock past its retention. */
    private long expiredNeighbour() {
      long neighbour = startInstance(2);
      finish(neighbour);
      exportedUpTo(position);
      clock.advance(PERIOD.plus(KEEP).plus(KEEP));
      return neighbour;
    }

    @Test
    void isDeletedWholeOnceItsLongRunnerEndedBeforeTheCutoff() {
      long longRunner = startInstance(1);
      exportedUpTo(position);
      clock.advance(PERIOD.plus(KEEP).plus(KEEP));
      assertThat(sweep.sweep().pinned()).containsExactly(periodOf(longRunner));

      startInstance(0); // a later period: the long-runner's gets no new instance
      finish(longRunner);
      exportedUpTo(position);
      clock.advance(KEEP.plus(Duration.ofSeconds(1)));

      assertThat(sweep.sweep().deleted()).containsExactly(periodOf(longRunner));
      assertThat(variablesOf(longRunner)).isEmpty();
    }
  }

  /**
   * A month of periods in miniature: 30 periods of a steady load, a sweep after each. The store's documents and bytes
   * stop growing once the retention is reached, searches for the instances still kept answer the same before and after
   * each sweep, and a long-runner started first is kept whole throughout.
   */
  @Test
  void theStoreHoldsAsManyPeriodsAsTheRetentionKeepsOverASimulatedMonthOfPeriods() {
    int instancesPerPeriod = 5;
    int steps = 15; // the count held flattens from the 5th period on (KEEP / PERIOD + 1 periods kept)
    long longRunner = startInstance(3);
    longRunnerParts(longRunner);
    exportedUpTo(position);
    Map<String, List<Map<String, Object>>> longRunnerBefore = wholeInstance(longRunner);
    long periodsKept = KEEP.dividedBy(PERIOD) + 1;
    List<Long> heldPerPeriod = new ArrayList<>();
    List<Long> bytesPerPeriod = new ArrayList<>();
    List<Long> kept = new ArrayList<>();

    for (int step = 0; step < steps; step++) {
      clock.advance(PERIOD);
      for (int i = 0; i < instancesPerPeriod; i++) {
        long instance = startInstance(2);
        finish(instance);
        kept.add(instance);
      }
      exportedUpTo(position);
      Instant cutoff = clock.instant().minus(KEEP);
      // what the sweep must keep whatever it deletes: the instances of periods that ended after the cutoff
      kept.removeIf(instance -> !periodOf(instance).end().isAfter(cutoff));
      List<String> liveBefore = variablesOfEach(kept);

      RetentionStatus status = sweep.sweep();

      assertThat(variablesOfEach(kept)).as("live searches after the sweep at step %d", step).isEqualTo(liveBefore);
      heldPerPeriod.add(store.count(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix)));
      bytesPerPeriod.add(settledBytes());
      assertThat(periodIndices()).as("period indices at step %d", step).hasSizeLessThanOrEqualTo(
          (int) periodsKept + 2);
      assertThat(status.bytesHeld()).isPositive();
    }
    System.out.printf("[simulated month] instances held per period: %s%n[simulated month] bytes held per period: %s%n",
        heldPerPeriod, bytesPerPeriod);

    // the long-runner's period, plus the periods still kept (and the one still in its last second)
    assertThat(heldPerPeriod.subList(10, steps))
        .allSatisfy(held -> assertThat(held).isLessThanOrEqualTo(1 + (periodsKept + 1) * instancesPerPeriod));
    assertThat(heldPerPeriod.getLast()).isGreaterThanOrEqualTo(1 + periodsKept * instancesPerPeriod);
    // flat: the last third holds no more bytes than the middle third did at most, with room for segments not merged
    long middle = bytesPerPeriod.subList(steps / 3, 2 * steps / 3).stream().mapToLong(Long::longValue).max()
        .orElseThrow();
    assertThat(bytesPerPeriod.subList(2 * steps / 3, steps)).allSatisfy(bytes -> assertThat(bytes)
        .as("bytes held in the last third against the middle third's most, %d", middle)
        .isLessThanOrEqualTo(middle + middle / 2));
    assertThat(wholeInstance(longRunner)).as("the long-runner, whole").isEqualTo(longRunnerBefore);
  }

  /**
   * Sweeps of several nodes on one store (each node runs its own, ADR 0011): two sweepers started together after each
   * period of a steady load. Their steps are idempotent, so together they leave what one would: every expired period
   * deleted and marked so, the kept instances and the long-runner whole, and neither fails.
   */
  @Test
  void twoSweepersRunningTogetherOnOneStoreLeaveWhatOneWouldAndNeitherFails() throws Exception {
    RetentionSweep other = new RetentionSweep(store, prefix, new RetentionSettings(KEEP, PERIOD, Duration.ofSeconds(1)),
        clock);
    long longRunner = startInstance(2);
    exportedUpTo(position);
    List<Map<String, Object>> longRunnerBefore = variablesOf(longRunner);
    List<Long> instances = new ArrayList<>();
    java.util.Set<Period> deletedByEither = new java.util.HashSet<>();
    java.util.concurrent.ExecutorService sweepers = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      for (int step = 0; step < 10; step++) {
        clock.advance(PERIOD);
        for (int i = 0; i < 3; i++) {
          long instance = startInstance(1);
          finish(instance);
          instances.add(instance);
        }
        exportedUpTo(position);
        java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
        var first = sweepers.submit(() -> {
          together.await();
          return sweep.sweep();
        });
        var second = sweepers.submit(() -> {
          together.await();
          return other.sweep();
        });
        deletedByEither.addAll(first.get().deleted());
        deletedByEither.addAll(second.get().deleted());
      }
    } finally {
      sweepers.shutdownNow();
    }

    Instant cutoff = clock.instant().minus(KEEP);
    BucketTable durable = new BucketTableStore(store, prefix).read(PERIOD);
    for (long instance : instances) {
      Period period = periodOf(instance);
      boolean expired = !period.end().isAfter(cutoff);
      assertThat(variablesOf(instance)).as("instance %d of %s, expired: %s", instance, period.label(), expired)
          .hasSize(expired ? 0 : 1);
      if (expired) {
        assertThat(durable.state(period)).isEqualTo(BucketTable.State.DELETED);
        assertThat(deletedByEither).contains(period);
        assertThat(store.indexExists(period.indexName(prefix))).isFalse();
      }
    }
    assertThat(variablesOf(longRunner)).isEqualTo(longRunnerBefore);
  }

  /** A long-runner's other documents: its element instances, a job and an incident on it (all still open). */
  private void longRunnerParts(long key) {
    Period period = periodOf(key);
    write(period.entityName(prefix, ReadModelIndex.FLOW_NODE_INSTANCE), key + "-start", Map.of("key", key + 1,
        "processInstanceKey", key, "elementId", "start", "state", "COMPLETED", "partitionId", PARTITION));
    write(period.entityName(prefix, ReadModelIndex.FLOW_NODE_INSTANCE), key + "-task", Map.of("key", key + 2,
        "processInstanceKey", key, "elementId", "task", "state", "ACTIVE", "partitionId", PARTITION));
    write(period.entityName(prefix, ReadModelIndex.JOB), key + "-job", Map.of("key", key + 3,
        "processInstanceKey", key, "type", "work", "state", "FAILED", "retries", 0, "partitionId", PARTITION));
    write(period.entityName(prefix, ReadModelIndex.INCIDENT), key + "-incident", Map.of("key", key + 4,
        "processInstanceKey", key, "errorType", "JOB_NO_RETRIES", "state", "ACTIVE", "partitionId", PARTITION));
  }

  /** Everything of an instance, by entity, searched through the entities' global names as the web app searches. */
  private Map<String, List<Map<String, Object>>> wholeInstance(long key) {
    Map<String, List<Map<String, Object>>> whole = new LinkedHashMap<>();
    whole.put("instance", instance(key));
    for (ReadModelIndex entity : List.of(ReadModelIndex.FLOW_NODE_INSTANCE, ReadModelIndex.VARIABLE,
        ReadModelIndex.JOB, ReadModelIndex.INCIDENT)) {
      List<Map<String, Object>> found = new ArrayList<>(
          store.findByField(entity.indexName(prefix), "processInstanceKey", key, 100));
      found.sort(Comparator.comparing(document -> String.valueOf(document.get("key"))
          + document.get("name")));
      whole.put(entity.entity(), found);
    }
    assertThat(whole.values()).as("every kind of document of the instance").allSatisfy(found ->
        assertThat(found).isNotEmpty());
    return whole;
  }

  /** The variables of these instances in one search on the entity's global name (one per instance costs a minute). */
  private List<String> variablesOfEach(List<Long> instances) {
    List<String> variables = new ArrayList<>();
    store.admin().request("variables of the kept instances", "POST",
        "/" + ReadModelIndex.VARIABLE.indexName(prefix) + "/_search", Map.of("size", 10_000,
            "query", Map.of("terms", Map.of("processInstanceKey", instances)),
            "sort", List.of(Map.of("processInstanceKey", "asc"), Map.of("name", "asc"))))
        .path("hits").path("hits").forEach(hit -> variables.add(hit.path("_source").toString()));
    assertThat(variables).as("two variables per kept instance").hasSize(2 * instances.size());
    return variables;
  }

  /** The bytes of the read model's indices once written segments are flushed, as the sweep reports them. */
  private long settledBytes() {
    String indices = ReadModelIndex.sharedIndexName(prefix) + "," + ReadModelIndex.sharedIndexName(prefix + "-p*");
    store.admin().request("flush", "POST", "/" + indices + "/_flush", null);
    return store.admin().request("size", "GET", "/" + indices + "/_stats/store", null)
        .path("_all").path("total").path("store").path("size_in_bytes").asLong();
  }

  @Test
  void anEntitysNameOverTheBaseAndSeveralPeriodsAnswersGetsByIds() {
    long inBase = nextKey++;
    write(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), String.valueOf(inBase), instanceDocument(inBase, null));
    long first = startInstance(0);
    clock.advance(PERIOD);
    long second = startInstance(0);

    Map<String, Map<String, Object>> found = store.getAll(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix),
        List.of(String.valueOf(inBase), String.valueOf(first), String.valueOf(second), "404"));

    assertThat(found).containsOnlyKeys(String.valueOf(inBase), String.valueOf(first), String.valueOf(second));
    assertThat(((Number) found.get(String.valueOf(second)).get("key")).longValue()).isEqualTo(second);
    assertThat(found.get(String.valueOf(second))).doesNotContainKey("kind");
    assertThat(store.get(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), String.valueOf(first))).get()
        .isEqualTo(found.get(String.valueOf(first)));
    assertThat(store.get(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), "404")).isEmpty();
  }

  @Test
  void prunesExpiredInstancesOfTheBaseIndexAndKeepsItsProcessDefinitions() {
    long key = nextKey++;
    write(ReadModelIndex.PROCESS_DEFINITION.indexName(prefix), "1", Map.of("key", 1L, "bpmnProcessId", "p"));
    write(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), String.valueOf(key), instanceDocument(key, null));
    write(ReadModelIndex.VARIABLE.indexName(prefix), key + "-v", variableDocument(key, "v"));
    write(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), String.valueOf(key),
        instanceDocument(key, clock.instant()));
    exportedUpTo(position);

    clock.advance(KEEP.plus(Duration.ofSeconds(1)));
    RetentionStatus status = sweep.sweep();

    assertThat(status.instancesPruned()).isEqualTo(1);
    assertThat(store.count(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix))).isZero();
    assertThat(store.count(ReadModelIndex.VARIABLE.indexName(prefix))).isZero();
    assertThat(store.count(ReadModelIndex.PROCESS_DEFINITION.indexName(prefix))).isEqualTo(1);
  }

  @Test
  void deletesDeadLettersOlderThanTheRetentionAndKeepsTheRecentOnes() {
    String letters = ReadModelIndex.DEAD_LETTER.indexName(prefix);
    store.put(letters, "old", Map.of("reason", "mapping conflict", "time", clock.instant().toString()));
    clock.advance(KEEP);
    store.put(letters, "recent", Map.of("reason", "mapping conflict", "time", clock.instant().toString()));
    clock.advance(Duration.ofSeconds(1));
    store.refresh(letters);

    RetentionStatus status = sweep.sweep();

    assertThat(status.deadLettersDeleted()).isEqualTo(1);
    store.refresh(letters);
    assertThat(store.findByField(letters, "reason", "conflict", 10)).extracting(letter -> letter.get("time"))
        .containsExactly(clock.instant().minusSeconds(1).toString());
  }

  @Test
  void deletesBatchOperationsThatEndedBeforeTheCutoffWithTheirItemsAndLeasesAndKeepsRunningAndRecentOnes() {
    String batches = BatchOperationIndex.name(prefix);
    store.createIndex(batches, BatchOperationIndex.BODY);
    batch("old", clock.instant().toString());
    batch("running", null);
    clock.advance(KEEP);
    batch("recent", clock.instant().toString());
    clock.advance(Duration.ofSeconds(1));

    RetentionStatus status = sweep.sweep();

    assertThat(status.batchOperationsDeleted()).isEqualTo(1);
    List<String> left = new ArrayList<>();
    store.admin().request("batches left", "POST", "/" + batches + "/_search", Map.of("size", 100,
        "query", Map.of("exists", Map.of("field", "batchOperationKey"))))
        .path("hits").path("hits").forEach(hit -> left.add(hit.path("_source").path("batchOperationKey").asText()));
    assertThat(left).as("batches and items left").containsOnly("running", "recent").hasSize(4);
    assertThat(store.get(batches, "lease-old")).isEmpty();
    assertThat(store.get(batches, "lease-running")).isPresent();
    assertThat(store.get(batches, "lease-recent")).isPresent();
  }

  @Test
  void deletesTheTombstonesOfDeletedInstancesAndTheAuditEntriesOlderThanTheRetentionAndKeepsTheRecentOnes() {
    DeletedInstances tombstones = new DeletedInstances(store, prefix);
    String audit = AuditLogIndex.name(prefix);
    store.createIndex(audit, AuditLogIndex.BODY);
    tombstones.mark(new DeletedInstances.Tombstone(11, 1, 100, clock.instant(), clock.instant(), "operator"));
    store.put(audit, "old", Map.of("auditLogKey", "old", "timestamp", clock.instant().toString()));
    clock.advance(KEEP);
    tombstones.mark(new DeletedInstances.Tombstone(12, 1, 200, clock.instant(), clock.instant(), "operator"));
    store.put(audit, "recent", Map.of("auditLogKey", "recent", "timestamp", clock.instant().toString()));
    clock.advance(Duration.ofSeconds(1));
    store.refresh(audit);

    sweep.sweep();

    assertThat(tombstones.keysOf(1)).containsExactly(12L);
    assertThat(store.get(audit, "old")).isEmpty();
    assertThat(store.get(audit, "recent")).isPresent();
  }

  /** A batch as the web app keeps it: the batch, one item, its lease marker. */
  private void batch(String key, String endDate) {
    String batches = BatchOperationIndex.name(prefix);
    Map<String, Object> batch = new LinkedHashMap<>(Map.of("kind", "batch", "batchOperationKey", key,
        "startDate", clock.instant().toString()));
    if (endDate != null) {
      batch.put("endDate", endDate);
    }
    store.put(batches, key, batch);
    store.put(batches, key + "-1", Map.of("kind", "item", "batchOperationKey", key, "itemKey", "1",
        "state", "COMPLETED"));
    store.put(batches, "lease-" + key, Map.of("state", "DONE", "owner", "web app"));
  }

  // --- an instance's documents, written as the exporter writes them

  private long startInstance(int variables) {
    long key = nextKey++;
    openPeriod(key, position + 1);
    Period period = periodOf(key);
    write(period.entityName(prefix, ReadModelIndex.PROCESS_INSTANCE), String.valueOf(key),
        instanceDocument(key, null));
    for (int i = 0; i < variables; i++) {
      write(period.entityName(prefix, ReadModelIndex.VARIABLE), key + "-v" + i, variableDocument(key, "v" + i));
    }
    return key;
  }

  /** As the exporter's routing does on a creation: the boundary (if it opens a period) and its index, durable. */
  private void openPeriod(long instanceKey, long creationPosition) {
    table.open(PARTITION, instanceKey, clock.instant(), creationPosition).ifPresent(boundary -> {
      periods.ensure(boundary.period());
      tableStore.write(boundary);
    });
  }

  private void finish(long key) {
    write(periodOf(key).entityName(prefix, ReadModelIndex.PROCESS_INSTANCE), String.valueOf(key),
        instanceDocument(key, clock.instant()));
  }

  private Period periodOf(long key) {
    return table.periodOf(PARTITION, key).orElseThrow();
  }

  private Map<String, Object> instanceDocument(long key, Instant end) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("key", key);
    document.put("state", end == null ? "ACTIVE" : "COMPLETED");
    document.put("startDate", clock.instant().toString());
    if (end != null) {
      document.put("endDate", end.toString());
    }
    document.put("partitionId", PARTITION);
    return document;
  }

  private Map<String, Object> variableDocument(long instanceKey, String name) {
    return Map.of("processInstanceKey", instanceKey, "scopeKey", instanceKey, "name", name, "value", "\"x\"",
        "partitionId", PARTITION);
  }

  private void write(String index, String id, Map<String, Object> document) {
    long at = ++position;
    Map<String, Object> withPosition = new LinkedHashMap<>(document);
    withPosition.put("position", at);
    assertThat(store.bulk(List.of(new DocumentWrite(index, id, at, withPosition)), true).failures()).isEmpty();
  }

  private void exportedUpTo(long exported) {
    store.bulk(List.of(new DocumentWrite(ReadModelIndex.EXPORT_POSITION.indexName(prefix),
        ReadModelIndex.exportPositionId(PARTITION), exported,
        Map.of("partitionId", PARTITION, "position", exported))), true);
  }

  // --- the oracle: searches on the entities' global names, as the web app makes them

  private List<Map<String, Object>> variablesOf(long instanceKey) {
    List<Map<String, Object>> found = new ArrayList<>(
        store.findByField(ReadModelIndex.VARIABLE.indexName(prefix), "processInstanceKey", instanceKey, 100));
    found.sort(Comparator.comparing(v -> (String) v.get("name")));
    return found;
  }

  private List<Map<String, Object>> instance(long key) {
    return store.findByField(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), "key", key, 10);
  }

  private List<String> periodIndices() {
    List<String> names = new ArrayList<>();
    store.admin().request("list", "GET", "/_cat/indices/" + ReadModelIndex.sharedIndexName(prefix + "-p*")
        + "?format=json", null).forEach(row -> names.add(row.path("index").asText()));
    return names;
  }
}
