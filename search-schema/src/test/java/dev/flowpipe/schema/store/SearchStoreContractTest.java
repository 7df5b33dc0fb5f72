package dev.flowpipe.schema.store;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.schema.MigratedReadModel;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.PreviousSchemaReadModel;
import dev.flowpipe.testsupport.StoreProxy;
import dev.flowpipe.schema.TestCertificates;
import dev.flowpipe.schema.TlsProxy;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.lease.StoreLease;
import dev.flowpipe.schema.TestClock;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.query.GroupCountQuery;
import dev.flowpipe.schema.query.ValueCountQuery;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every store adapter must do, run against a real node of each engine ({@code OpenSearchStoreTest},
 * {@code ElasticsearchStoreTest}): position-versioned writes that make replays harmless, real-time reads, item errors
 * sorted, requests that are too large reported as such, and the read-model schema.
 */
public abstract class SearchStoreContractTest {

  private static final String STRICT_INDEX_BODY =
      """
      {"settings": {"number_of_shards": 1, "number_of_replicas": 0},
       "mappings": {"dynamic": "strict", "_meta": {"schemaVersion": 1},
         "properties": {"state": {"type": "keyword"}, "count": {"type": "integer"}, "position": {"type": "long"}}}}
      """;

  private final SearchStore store;
  private final String url;
  private String index;

  /** @param url the store's URL, for tests that put a proxy in front of it */
  protected SearchStoreContractTest(SearchStore store, String url) {
    this.store = store;
    this.url = url;
  }

  @BeforeEach
  void createIndex() {
    index = SharedOpenSearch.uniquePrefix() + "-doc";
    assertThat(store.createIndex(index, STRICT_INDEX_BODY)).isTrue();
  }

  @Test
  void aLeaseIsHeldByOneProcessAndTakenOverOnlyOnceItsHolderWasSilentForTheExpiry() {
    // given two processes, each with its own clock, and a lease the first one created
    String leases = leaseIndex();
    Duration expiry = Duration.ofSeconds(6);
    TestClock clockOfA = new TestClock();
    TestClock clockOfB = new TestClock();
    StoreLease a = new StoreLease(store, leases, "work", "a", clockOfA, expiry);
    StoreLease b = new StoreLease(store, leases, "work", "b", clockOfB, expiry);
    assertThat(a.claimNew(Map.of())).isTrue();
    assertThat(b.claimNew(Map.of())).as("a second creation of the same marker").isFalse();

    // when A renews while B looks, and then falls silent
    assertThat(b.tryClaim(Map.of())).isFalse();
    clockOfA.advance(expiry.dividedBy(2));
    clockOfB.advance(expiry.dividedBy(2));
    a.renew(Map.of("progress", 1));
    clockOfB.advance(expiry.dividedBy(2).plusSeconds(1));
    assertThat(b.tryClaim(Map.of())).as("an expiry since B first looked, but A renewed meanwhile").isFalse();
    assertThat(a.holds()).isTrue();
    clockOfA.advance(expiry.dividedBy(2));
    assertThat(a.holds()).as("A's own claim, half an expiry old").isFalse();
    clockOfB.advance(expiry);

    // then B takes it over, and A finds it lost
    assertThat(b.tryClaim(Map.of())).isTrue();
    assertThat(b.holds()).isTrue();
    assertThat(store.get(leases, "work")).hasValueSatisfying(marker ->
        assertThat(marker).containsEntry("owner", "b").containsEntry("state", StoreLease.RUNNING));
    assertThatThrownBy(() -> a.renew(Map.of())).isInstanceOf(StoreLease.LeaseLostException.class);
    b.finish(Map.of());
    assertThat(store.get(leases, "work")).hasValueSatisfying(marker ->
        assertThat(marker).containsEntry("state", StoreLease.DONE));
  }

  @Test
  void ofTwoProcessesTakingOverAnExpiredLeaseOnlyTheFirstGetsIt() {
    String leases = leaseIndex();
    Duration expiry = Duration.ofSeconds(6);
    TestClock clock = new TestClock();
    new StoreLease(store, leases, "work", "gone", clock, expiry).claimNew(Map.of());
    StoreLease b = new StoreLease(store, leases, "work", "b", clock, expiry);
    StoreLease c = new StoreLease(store, leases, "work", "c", clock, expiry);
    assertThat(b.tryClaim(Map.of())).isFalse();
    assertThat(c.tryClaim(Map.of())).isFalse();

    clock.advance(expiry);

    assertThat(List.of(b.tryClaim(Map.of()), c.tryClaim(Map.of()))).containsExactlyInAnyOrder(true, false);
  }

  private String leaseIndex() {
    String leases = SharedOpenSearch.uniquePrefix() + "-lease";
    store.createIndex(leases, StoreLease.indexBody(0));
    return leases;
  }

  @Test
  void listsTheTasksRunningNowByAction() {
    // the listing is itself a running task of its action, so it must find itself
    assertThat(store.runningTasks("cluster:monitor/tasks/lists*")).hasValueSatisfying(ids ->
        assertThat(ids).isNotEmpty().allMatch(id -> id.matches("[^:]+:\\d+")));
    assertThat(store.runningTasks("no:such/action")).hasValue(Set.of());
  }

  @Test
  void givenAnHttpsStoreSignedByTheTrustStoresCaWhenConnectingThenIndexBulkAndSearchWork() {
    StoreTls tls = new StoreTls("tls.", TestCertificates.get().caTrustStore(), TestCertificates.TRUST_STORE_PASSWORD,
        "PKCS12", null, true);
    try (TlsProxy https = new TlsProxy(url);
        SearchStore secured = SearchStoreConnector.connect(
            new StoreConnection(URI.create(https.url("localhost")), null, null, null, null, tls))) {
      String tlsIndex = SharedOpenSearch.uniquePrefix() + "-tls";
      assertThat(secured.createIndex(tlsIndex, STRICT_INDEX_BODY)).isTrue();

      BulkOutcome outcome = secured.bulk(List.of(new DocumentWrite(tlsIndex, "1", 1, Map.of("state", "A")),
          new DocumentWrite(tlsIndex, "2", 2, Map.of("state", "B"))), true);

      assertThat(outcome.allApplied()).isTrue();
      assertThat(secured.search(SearchQuery.of(tlsIndex, List.of(), List.of(), 10)).total()).isEqualTo(2);
    }
  }

  @Test
  void writesTheDocumentWithItsPosition() {
    BulkOutcome outcome = store.bulk(List.of(new DocumentWrite(index, "1", 10, Map.of("state", "A"))));

    assertThat(outcome.written()).hasSize(1);
    assertThat(store.get(index, "1")).hasValue(Map.of("state", "A", "position", 10));
  }

  @Test
  void aDocumentPutTwiceUnderOneIdIsStoredOnceWithTheLastContent() {
    store.put(index, "letter", Map.of("state", "FIRST", "count", 1));
    store.put(index, "letter", Map.of("state", "AGAIN", "count", 2));

    store.refresh(index);
    assertThat(store.count(index)).isEqualTo(1);
    assertThat(store.get(index, "letter")).hasValue(Map.of("state", "AGAIN", "count", 2));
  }

  @Test
  void aBulkAskedToRefreshIsSearchableWhenItReturnsAndAPlainOneOnlyAfterARefresh() {
    String manual = SharedOpenSearch.uniquePrefix() + "-manual";
    // no scheduled refresh at all: only the bulk's own refresh can make its documents searchable
    assertThat(store.createIndex(manual, STRICT_INDEX_BODY.replace(
        "\"number_of_replicas\": 0", "\"number_of_replicas\": 0, \"refresh_interval\": \"-1\""))).isTrue();

    store.bulk(List.of(new DocumentWrite(manual, "plain", 1, Map.of("state", "A"))), false);
    long afterPlain = store.search(SearchQuery.of(manual, List.of(), List.of(), 0)).total();
    store.bulk(List.of(new DocumentWrite(manual, "refreshed", 2, Map.of("state", "B"))), true);
    long afterRefreshing = store.search(SearchQuery.of(manual, List.of(), List.of(), 0)).total();

    assertThat(afterPlain).isZero();
    assertThat(afterRefreshing).isEqualTo(2);
  }

  @Test
  void aWriteOfTheSameOrAnOlderPositionIsSupersededAndChangesNothing() {
    store.bulk(List.of(new DocumentWrite(index, "1", 10, Map.of("state", "NEW"))));

    BulkOutcome replay =
        store.bulk(
            List.of(
                new DocumentWrite(index, "1", 10, Map.of("state", "SAME")),
                new DocumentWrite(index, "1", 5, Map.of("state", "OLD"))));

    assertThat(replay.allApplied()).isTrue();
    assertThat(replay.superseded()).hasSize(2);
    assertThat(store.get(index, "1")).hasValue(Map.of("state", "NEW", "position", 10));
  }

  @Test
  void readsManyDocumentsAtOnceInRealTimeSkippingMissingOnes() {
    store.bulk(
        List.of(
            new DocumentWrite(index, "a", 1, Map.of("state", "A")),
            new DocumentWrite(index, "b", 2, Map.of("state", "B"))));

    var found = store.getAll(index, List.of("a", "missing", "b"));

    assertThat(found).containsOnlyKeys("a", "b");
    assertThat(found.get("b")).containsEntry("state", "B").containsEntry("position", 2);
  }

  @Test
  void aBulkOverTheStoresRequestLimitIsReportedAsTooLarge() throws Exception {
    try (StoreProxy limited = new StoreProxy(url, null, null).limitBodyTo(200);
        SearchStore throughProxy = SearchStoreConnector.connect(StoreConnection.of(limited.url()))) {
      List<DocumentWrite> big = List.of(new DocumentWrite(index, "x", 1, Map.of("state", "y".repeat(500))));

      assertThatThrownBy(() -> throughProxy.bulk(big)).isInstanceOf(RequestTooLargeException.class);
    }
  }

  @Test
  void aDocumentTheMappingRejectsIsReportedAsAPermanentItemFailureAndTheRestIsWritten() {
    BulkOutcome outcome =
        store.bulk(
            List.of(
                new DocumentWrite(index, "ok", 1, Map.of("state", "A")),
                new DocumentWrite(index, "bad", 2, Map.of("unknownField", "x"))));

    assertThat(outcome.written()).hasSize(1);
    assertThat(outcome.failures()).singleElement().satisfies(failure -> {
      assertThat(failure.write().id()).isEqualTo("bad");
      assertThat(failure.status()).isEqualTo(400);
      assertThat(failure.retryable()).isFalse();
      assertThat(failure.reason()).contains("strict_dynamic_mapping_exception");
    });
    assertThat(store.get(index, "ok")).isPresent();
  }

  @Test
  void aWriteToAnIndexBlockedAtTheFloodStageIsARetryableItemFailureNeverAPermanentOne() throws Exception {
    // the block the store sets by itself when its disk passes the flood-stage watermark
    blockAsAtTheFloodStage(true);
    try {
      BulkOutcome outcome = store.bulk(List.of(new DocumentWrite(index, "blocked", 1, Map.of("state", "A"))));

      assertThat(outcome.failures()).singleElement().satisfies(failure -> {
        assertThat(failure.status()).isEqualTo(429);
        assertThat(failure.reason()).contains("cluster_block_exception");
        assertThat(failure.retryable()).as("retried, not dead-lettered").isTrue();
      });
    } finally {
      blockAsAtTheFloodStage(false);
    }
    assertThat(store.bulk(List.of(new DocumentWrite(index, "blocked", 1, Map.of("state", "A")))).written())
        .as("written once the block is lifted").hasSize(1);
  }

  private void blockAsAtTheFloodStage(boolean blocked) throws Exception {
    var answer = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(URI.create(url + "/" + index + "/_settings"))
            .header("Content-Type", "application/json")
            .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(
                "{\"index.blocks.read_only_allow_delete\": " + (blocked ? "true" : "null") + "}"))
            .build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
  }

  @Test
  void reportsGreenHealth() {
    assertThat(store.health()).isIn("green", "yellow");
  }

  @Test
  void takesTheReadModelSchema() {
    String prefix = SharedOpenSearch.uniquePrefix();

    new SchemaManager(store, prefix, "1s").ensureSchema();

    for (ReadModelIndex readModelIndex : ReadModelIndex.values()) {
      assertThat(store.mappingMeta(readModelIndex.indexName(prefix))).containsEntry("schemaVersion", ReadModelIndex.SCHEMA_VERSION);
    }
  }

  @Test
  void aReadModelOfThePreviousSchemaVersionIsMigratedInPlaceWithEveryDocument() {
    String prefix = SharedOpenSearch.uniquePrefix();
    var written = PreviousSchemaReadModel.write(url, prefix, 30);

    new SchemaManager(store, prefix, "1s").ensureSchema();

    MigratedReadModel.assertMigrated(store, prefix, written);
  }

  @Test
  void aScanHandsBackEveryStoredDocumentWithItsVersionPageByPage() {
    List<DocumentWrite> writes = new ArrayList<>();
    for (int i = 1; i <= 25; i++) {
      writes.add(new DocumentWrite(index, "d" + i, 100 + i, Map.of("state", "S" + i)));
    }
    store.bulk(writes, true);
    List<Integer> pageSizes = new ArrayList<>();
    Map<String, Long> versions = new java.util.HashMap<>();

    store.scan(index, 10, page -> {
      pageSizes.add(page.size());
      page.forEach(document -> versions.put(document.id(), document.version()));
    });

    assertThat(pageSizes).containsExactly(10, 10, 5);
    assertThat(versions).hasSize(25).containsEntry("d1", 101L).containsEntry("d25", 125L);
  }

  @Test
  void aliasesAddedInOneRequestNameTheIndexAndADeletedIndexIsGone() {
    store.bulk(List.of(new DocumentWrite(index, "a", 1, Map.of("state", "A"))), true);

    store.updateAliases("{\"actions\": [{\"add\": {\"index\": \"" + index + "\", \"alias\": \"" + index
        + "-alias\"}}]}");
    assertThat(store.get(index + "-alias", "a")).isPresent();
    store.deleteIndex(index);
    store.deleteIndex(index);

    assertThat(store.indexExists(index)).isFalse();
    assertThat(store.indexExists(index + "-alias")).isFalse();
  }

  @Test
  void readModelEntitiesShareOneIndexYetKeepTheirOwnIdsDocumentsAndSearches() {
    String prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    String elements = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(prefix);

    // the same id in two entities: two documents, neither overwrites the other
    store.bulk(
        List.of(
            new DocumentWrite(instances, "7", 10, Map.of("key", 7, "state", "ACTIVE")),
            new DocumentWrite(elements, "7", 11, Map.of("key", 7, "elementId", "task"))),
        true);

    assertThat(store.get(instances, "7")).hasValue(Map.of("key", 7, "state", "ACTIVE", "position", 10));
    assertThat(store.get(elements, "7")).hasValue(Map.of("key", 7, "elementId", "task", "position", 11));
    assertThat(store.getAll(elements, List.of("7", "8"))).containsOnlyKeys("7");
    assertThat(store.count(instances)).isEqualTo(1);
    assertThat(store.count(ReadModelIndex.sharedIndexName(prefix))).isEqualTo(2);
    assertThat(store.all(elements, 10)).containsExactly(Map.of("key", 7, "elementId", "task", "position", 11));
    assertThat(store.findByField(instances, "key", 7L, 10))
        .containsExactly(Map.of("key", 7, "state", "ACTIVE", "position", 10));

    SearchHits hits = store.search(new SearchQuery(List.of(elements), List.of(), List.of(), 0, 10, null, null));
    assertThat(hits.total()).isEqualTo(1);
    assertThat(hits.hits().getFirst().index()).isEqualTo(elements);
    assertThat(hits.hits().getFirst().id()).isEqualTo("7");
    assertThat(hits.hits().getFirst().source()).doesNotContainKey(ReadModelIndex.KIND_FIELD);
    assertThat(store.countByValue(new ValueCountQuery(List.of(elements), List.of(), "key", 10, Map.of())))
        .containsExactly(new ValueCountQuery.ValueCount("7", 1, Map.of()));

    // a replayed older write of one entity is refused by its own version, not by the other entity's
    BulkOutcome replay =
        store.bulk(List.of(new DocumentWrite(instances, "7", 9, Map.of("key", 7, "state", "OLD"))), true);
    assertThat(replay.written()).isEmpty();
    assertThat(replay.superseded()).hasSize(1);
    assertThat(store.get(instances, "7")).hasValue(Map.of("key", 7, "state", "ACTIVE", "position", 10));
  }

  // --- search: the query capability the web app builds on ---

  private static final String SEARCH_INDEX_BODY =
      """
      {"settings": {"number_of_shards": 1, "number_of_replicas": 0},
       "mappings": {"dynamic": "strict",
         "properties": {"key": {"type": "long"}, "state": {"type": "keyword"}, "flag": {"type": "boolean"},
           "startDate": {"type": "date"}, "endDate": {"type": "date"}, "note": {"type": "text", "index": false},
           "position": {"type": "long"}}}}
      """;

  /** Ten documents, keys 1..10: state A for odd keys, B for even; endDate only on keys <= 5; flag on keys > 7. */
  private String searchIndex() {
    String searchIndex = SharedOpenSearch.uniquePrefix() + "-search";
    store.createIndex(searchIndex, SEARCH_INDEX_BODY);
    List<DocumentWrite> writes = new ArrayList<>();
    for (int key = 1; key <= 10; key++) {
      Map<String, Object> doc = new java.util.LinkedHashMap<>();
      doc.put("key", key);
      doc.put("state", key % 2 == 1 ? "A" : "B");
      doc.put("flag", key > 7);
      doc.put("startDate", String.format("2026-01-%02dT00:00:00.000Z", key));
      if (key <= 5) {
        doc.put("endDate", String.format("2026-02-%02dT00:00:00.000Z", key));
      }
      doc.put("note", "note " + key);
      writes.add(new DocumentWrite(searchIndex, String.valueOf(key), key, doc));
    }
    store.bulk(writes);
    store.refresh(searchIndex);
    return searchIndex;
  }

  private List<Object> keysOf(SearchHits hits) {
    return hits.hits().stream().map(hit -> hit.source().get("key")).map(k -> (Object) ((Number) k).intValue()).toList();
  }

  private SearchHits searchKeys(String searchIndex, Criterion... criteria) {
    return store.search(SearchQuery.of(searchIndex, List.of(criteria), List.of(SortField.ascending("key")), 100));
  }

  @Test
  void searchFiltersByEveryKindOfCriterion() {
    String searchIndex = searchIndex();

    assertThat(keysOf(searchKeys(searchIndex, new Criterion.Equals("state", "B")))).containsExactly(2, 4, 6, 8, 10);
    assertThat(keysOf(searchKeys(searchIndex, new Criterion.Equals("flag", true)))).containsExactly(8, 9, 10);
    assertThat(keysOf(searchKeys(searchIndex, new Criterion.OneOf("key", List.of(3L, 7L, 42L))))).containsExactly(3, 7);
    assertThat(keysOf(searchKeys(searchIndex, new Criterion.Not(new Criterion.Exists("endDate")))))
        .containsExactly(6, 7, 8, 9, 10);
    assertThat(keysOf(searchKeys(searchIndex, new Criterion.Like("state", "?"), new Criterion.Like("state", "A*"))))
        .containsExactly(1, 3, 5, 7, 9);
    assertThat(keysOf(searchKeys(searchIndex, new Criterion.Range("key", 2, null, null, 4)))).containsExactly(3, 4);
    assertThat(keysOf(searchKeys(
            searchIndex, new Criterion.Range("startDate", null, "2026-01-09T00:00:00.000Z", null, null))))
        .containsExactly(9, 10);
    assertThat(keysOf(searchKeys(searchIndex, new Criterion.Not(new Criterion.OneOf("state", List.of("A"))))))
        .containsExactly(2, 4, 6, 8, 10);
    assertThat(keysOf(searchKeys(searchIndex, new Criterion.OneOf("state", List.of())))).isEmpty();
    assertThat(keysOf(searchKeys(searchIndex, new Criterion.Not(new Criterion.OneOf("state", List.of()))))).hasSize(10);
    // (flag and not B) or key <= 2, within state A: a group may hold a Not
    assertThat(keysOf(searchKeys(searchIndex, new Criterion.Equals("state", "A"), new Criterion.AnyOf(List.of(
            List.of(new Criterion.Equals("flag", true), new Criterion.Not(new Criterion.Equals("state", "B"))),
            List.of(new Criterion.Range("key", null, null, null, 2)))))))
        .containsExactly(1, 9);
  }

  @Test
  void searchSortsPagesByOffsetAndContinuesAfterTheLastSortValues() {
    String searchIndex = searchIndex();
    List<SortField> byStateThenKeyDescending =
        List.of(new SortField("state", false, false), new SortField("key", true, false));

    SearchHits first =
        store.search(new SearchQuery(List.of(searchIndex), List.of(), byStateThenKeyDescending, 0, 4, null, null));
    SearchHits next =
        store.search(
            new SearchQuery(
                List.of(searchIndex), List.of(), byStateThenKeyDescending, 0, 4, first.hits().getLast().sortValues(),
                null));
    SearchHits byOffset =
        store.search(new SearchQuery(List.of(searchIndex), List.of(), byStateThenKeyDescending, 4, 4, null, null));

    assertThat(first.total()).isEqualTo(10);
    assertThat(keysOf(first)).containsExactly(9, 7, 5, 3);
    assertThat(keysOf(next)).containsExactly(1, 10, 8, 6);
    assertThat(keysOf(byOffset)).isEqualTo(keysOf(next));
  }

  @Test
  void searchWalksBackwardsWithReversedSortKeysAndPutsMissingValuesAtTheEnd() {
    String searchIndex = searchIndex();
    SortField byEndDate = new SortField("endDate", true, false);

    SearchHits forward = store.search(SearchQuery.of(searchIndex, List.of(), List.of(byEndDate, SortField.ascending("key")), 10));
    SearchHits.Hit seventh = forward.hits().get(6);
    SearchHits backward =
        store.search(
            new SearchQuery(
                List.of(searchIndex), List.of(), List.of(byEndDate.reversed(), SortField.ascending("key").reversed()),
                0, 3, seventh.sortValues(), null));

    assertThat(keysOf(forward)).containsExactly(5, 4, 3, 2, 1, 6, 7, 8, 9, 10);
    assertThat(keysOf(backward)).containsExactly(6, 1, 2);
  }

  @Test
  void searchCountsWithoutReturningDocumentsAndLeavesOutExcludedFields() {
    String searchIndex = searchIndex();

    SearchHits countOnly = store.search(SearchQuery.of(searchIndex, List.of(new Criterion.Equals("state", "A")), List.of(), 0));
    SearchHits withoutNote =
        store.search(
            new SearchQuery(List.of(searchIndex), List.of(new Criterion.Equals("key", 1)), List.of(), 0, 1, null,
                List.of("note")));

    assertThat(countOnly.total()).isEqualTo(5);
    assertThat(countOnly.hits()).isEmpty();
    assertThat(withoutNote.hits()).singleElement().satisfies(hit -> {
      assertThat(hit.id()).isEqualTo("1");
      assertThat(hit.index()).isEqualTo(searchIndex);
      assertThat(hit.source()).containsEntry("state", "A").doesNotContainKey("note");
    });
  }

  @Test
  void searchOnAMissingIndexFindsNothing() {
    SearchHits hits = store.search(SearchQuery.of(SharedOpenSearch.uniquePrefix() + "-none", List.of(), List.of(), 10));

    assertThat(hits.total()).isZero();
    assertThat(hits.hits()).isEmpty();
  }

  @Test
  void aSearchTheStoreCannotRunIsReportedAsRejected() {
    String searchIndex = searchIndex();
    SearchQuery patternOnANumber =
        SearchQuery.of(searchIndex, List.of(new Criterion.Like("key", "1*")), List.of(SortField.ascending("key")), 10);

    assertThatThrownBy(() -> store.search(patternOnANumber)).isInstanceOf(QueryRejectedException.class);
  }

  @Test
  void aSearchAndACountCarryTheirStoreSideTimeoutWhichTheStoreRunsUnder() {
    String searchIndex = searchIndex();
    SearchQuery leadingWildcard = new SearchQuery(List.of(searchIndex), List.of(new Criterion.Like("state", "*A")),
        List.of(SortField.ascending("key")), 0, 10, List.of(), List.of(), java.time.Duration.ofMillis(1500));
    ValueCountQuery count = new ValueCountQuery(List.of(searchIndex), List.of(), "state", 10, Map.of(),
        java.time.Duration.ofMillis(1500));

    assertThat(dev.flowpipe.schema.query.SearchJson.body(leadingWildcard)).contains("\"timeout\":\"1500ms\"");
    assertThat(dev.flowpipe.schema.query.SearchJson.body(count)).contains("\"timeout\":\"1500ms\"");
    // the store takes the timeout as given (a malformed one would be a 400) and answers in full within it
    assertThat(store.search(leadingWildcard).total()).isPositive();
    assertThat(store.countByValue(count)).isNotEmpty();
  }

  // --- counts per value: the aggregation behind the web app's statistics ---

  @Test
  void countsPerValueOfAFieldAndPerNamedConditionInValueOrder() {
    String searchIndex = searchIndex();
    Map<String, List<Criterion>> conditions = new java.util.LinkedHashMap<>();
    conditions.put("ended", List.of(new Criterion.Exists("endDate")));
    conditions.put("flaggedOpen", List.of(new Criterion.Equals("flag", true), new Criterion.Not(new Criterion.Exists("endDate"))));

    List<ValueCountQuery.ValueCount> counts =
        store.countByValue(
            new ValueCountQuery(List.of(searchIndex), List.of(new Criterion.Range("key", null, 2, null, null)), "state",
                10, conditions));

    // keys 2..10: A = 3,5,7,9 (ended: 3,5; flagged and open: 9), B = 2,4,6,8,10 (ended: 2,4; flagged and open: 8,10)
    assertThat(counts).containsExactly(
        new ValueCountQuery.ValueCount("A", 4, Map.of("ended", 2L, "flaggedOpen", 1L)),
        new ValueCountQuery.ValueCount("B", 5, Map.of("ended", 2L, "flaggedOpen", 2L)));
  }

  @Test
  void countsPerValueOfANumberOrBooleanFieldAsTextAndStopsAtTheMaximumNumberOfValues() {
    String searchIndex = searchIndex();

    List<ValueCountQuery.ValueCount> byFlag =
        store.countByValue(new ValueCountQuery(List.of(searchIndex), List.of(), "flag", 10, Map.of()));
    List<ValueCountQuery.ValueCount> firstKeys =
        store.countByValue(new ValueCountQuery(List.of(searchIndex), List.of(), "key", 3, Map.of()));

    assertThat(byFlag).containsExactly(
        new ValueCountQuery.ValueCount("false", 7, Map.of()), new ValueCountQuery.ValueCount("true", 3, Map.of()));
    assertThat(firstKeys).extracting(ValueCountQuery.ValueCount::value).containsExactly("1", "2", "3");
  }

  // --- counts per group of values, paged by the store: the aggregation behind the 8.9 statistics ---

  @Test
  void countsGroupsPageByPageUntilTheStoreSaysThereAreNoMoreWithConditionsAndASample() {
    String searchIndex = searchIndex();
    GroupCountQuery query = new GroupCountQuery(List.of(searchIndex), List.of(), List.of("state", "flag"), 2, null,
        Map.of("ended", List.of(new Criterion.Exists("endDate"))), List.of("state"), null);

    List<GroupCountQuery.Group> groups = new java.util.ArrayList<>();
    int pages = 0;
    for (GroupCountQuery page = query; page != null; pages++) {
      GroupCountQuery.GroupCounts counts = store.countGroups(page);
      groups.addAll(counts.groups());
      page = counts.afterKey() == null ? null : page.after(counts.afterKey());
    }

    // A: 1,3,5,7 unflagged (ended 1..5), 9 flagged; B: 2,4,6 unflagged (ended 2,4), 8,10 flagged
    assertThat(pages).isEqualTo(3);
    assertThat(groups).extracting(g -> g.key().get("state") + "/" + g.key().get("flag") + ": " + g.total() + " "
            + g.conditions().get("ended") + " " + g.sample().get("state"))
        .containsExactly("A/false: 4 3 A", "A/true: 1 0 A", "B/false: 3 2 B", "B/true: 2 0 B");
  }

  /**
   * A many-valued field (as a process instance's {@code incidentErrorHashCodes}, distinct values written as text): a
   * document is in the group of each of its values, once, and a document without values in none, so the groups'
   * document counts are exact counts of the documents holding each value.
   */
  @Test
  void countsADocumentOnceInTheGroupOfEachOfItsValues() {
    String index = SharedOpenSearch.uniquePrefix() + "-codes";
    store.createIndex(index, """
        {"settings": {"number_of_shards": 1, "number_of_replicas": 0},
         "mappings": {"dynamic": "strict", "properties": {"key": {"type": "long"}, "codes": {"type": "integer"},
           "position": {"type": "long"}}}}
        """);
    List<List<String>> codes = List.of(List.of("-3", "5"), List.of("5"), List.of("-3", "5", "7"), List.of());
    List<DocumentWrite> writes = new ArrayList<>();
    for (int key = 1; key <= codes.size(); key++) {
      writes.add(new DocumentWrite(index, String.valueOf(key), key, Map.of("key", key, "codes", codes.get(key - 1))));
    }
    writes.add(new DocumentWrite(index, "5", 5, Map.of("key", 5)));
    assertThat(store.bulk(writes, true).failures()).isEmpty();

    List<GroupCountQuery.Group> groups = store.countGroups(new GroupCountQuery(List.of(index), List.of(),
        List.of("codes"), 2, null, Map.of(), List.of(), null)).groups();
    List<GroupCountQuery.Group> ofFive = store.countGroups(new GroupCountQuery(List.of(index),
        List.of(new Criterion.Equals("codes", 5)), List.of("key"), 10, null, Map.of(), List.of(), null)).groups();

    assertThat(groups).extracting(g -> g.key().get("codes") + ": " + g.total()).containsExactly("-3: 2", "5: 3");
    assertThat(ofFive).extracting(g -> ((Number) g.key().get("key")).intValue()).containsExactly(1, 2, 3);
  }

  @Test
  void samplesTheFirstDocumentOfEachGroupInTheOrderAsked() {
    String searchIndex = searchIndex();

    // A: keys 1,3,5,7,9; B: 2,4,6,8,10 - the highest key of each, then the lowest
    List<GroupCountQuery.Group> highest = store.countGroups(new GroupCountQuery(List.of(searchIndex), List.of(),
        List.of("state"), 10, null, Map.of(), List.of("key", "note"),
        List.of(new SortField("key", true, false)), null)).groups();
    List<GroupCountQuery.Group> lowest = store.countGroups(new GroupCountQuery(List.of(searchIndex), List.of(),
        List.of("state"), 10, null, Map.of(), List.of("key"), List.of(SortField.ascending("key")), null))
        .groups();

    assertThat(highest).extracting(g -> g.key().get("state") + ": " + g.total() + " " + g.sample().get("key") + " "
        + g.sample().get("note")).containsExactly("A: 5 9 note 9", "B: 5 10 note 10");
    assertThat(lowest).extracting(g -> g.key().get("state") + ": " + g.sample().get("key"))
        .containsExactly("A: 1", "B: 2");
  }

  @Test
  void countsGroupsInAMissingIndexFindNoneAndNoNextPage() {
    GroupCountQuery.GroupCounts counts = store.countGroups(new GroupCountQuery(
        List.of(SharedOpenSearch.uniquePrefix() + "-none"), List.of(), List.of("state"), 10, null, Map.of(),
        List.of(), null));

    assertThat(counts.groups()).isEmpty();
    assertThat(counts.afterKey()).isNull();
  }

  @Test
  void countsPerValueInAMissingIndexFindNothing() {
    assertThat(store.countByValue(
            new ValueCountQuery(List.of(SharedOpenSearch.uniquePrefix() + "-none"), List.of(), "state", 10, Map.of())))
        .isEmpty();
  }

  @Test
  void aCountByAFieldTheStoreCannotGroupByIsReportedAsRejected() {
    String searchIndex = searchIndex();

    assertThatThrownBy(() -> store.countByValue(new ValueCountQuery(List.of(searchIndex), List.of(), "note", 10, Map.of())))
        .isInstanceOf(QueryRejectedException.class);
  }
}
