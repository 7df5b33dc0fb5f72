package dev.flowpipe.schema.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.TestClock;
import dev.flowpipe.schema.index.IndexLayout;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
      long neighbour = startInstance(2);
      finish(neighbour);
      exportedUpTo(position);
      List<Map<String, Object>> longRunnerBefore = variablesOf(longRunner);

      clock.advance(PERIOD.plus(KEEP).plus(KEEP));
      RetentionStatus status = sweep.sweep();

      assertThat(status.pinned()).containsExactly(periodOf(longRunner));
      assertThat(status.instancesPruned()).isEqualTo(1);
      assertThat(variablesOf(longRunner)).isEqualTo(longRunnerBefore).hasSize(4);
      assertThat(instance(longRunner)).isNotEmpty();
      assertThat(variablesOf(neighbour)).isEmpty();
      assertThat(instance(neighbour)).isEmpty();
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

  @Test
  void theStoreHoldsAsManyPeriodsAsTheRetentionKeepsOverASimulatedMonthOfPeriods() {
    int instancesPerPeriod = 5;
    long longRunner = startInstance(3);
    exportedUpTo(position);
    List<Map<String, Object>> longRunnerBefore = variablesOf(longRunner);
    long periodsKept = KEEP.dividedBy(PERIOD) + 1;
    List<Long> heldPerPeriod = new ArrayList<>();

    for (int step = 0; step < 30; step++) {
      clock.advance(PERIOD);
      for (int i = 0; i < instancesPerPeriod; i++) {
        finish(startInstance(2));
      }
      exportedUpTo(position);
      RetentionStatus status = sweep.sweep();
      heldPerPeriod.add(store.count(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix)));
      assertThat(periodIndices()).as("period indices at step %d", step).hasSizeLessThanOrEqualTo(
          (int) periodsKept + 2);
      assertThat(status.bytesHeld()).isPositive();
    }

    // the long-runner's period, plus the periods still kept (and the one still in its last second)
    assertThat(heldPerPeriod.subList(10, heldPerPeriod.size()))
        .allSatisfy(held -> assertThat(held).isLessThanOrEqualTo(1 + (periodsKept + 1) * instancesPerPeriod));
    assertThat(heldPerPeriod.get(heldPerPeriod.size() - 1)).isGreaterThanOrEqualTo(1 + periodsKept * instancesPerPeriod);
    assertThat(variablesOf(longRunner)).isEqualTo(longRunnerBefore);
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
