package dev.flowpipe.importer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.importer.config.ImporterSettings;
import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.importer.source.SyntheticRawRecords;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.StoreProxy;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.protocol.record.ValueType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The importer against a real OpenSearch: raw records written as the stock exporter writes them (day-indices, sequences,
 * ids), imported, and compared field by field with what our exporter makes of the same records (the oracle).
 */
@ExtendWith(SharedOpenSearch.class)
class ImporterOnRealStoreTest {

  // 40 instances per partition, a record every 250 ms from 23:59: the run crosses midnight into a second day-index
  private static final SyntheticRawRecords RECORDS =
      new SyntheticRawRecords(2, 40, Instant.parse("2026-11-25T23:59:00Z"), 250);

  private final SearchStore store;
  private final String url;
  private final String sourcePrefix = SharedOpenSearch.uniquePrefix();
  private final String expectedPrefix = SharedOpenSearch.uniquePrefix();
  private final String actualPrefix = SharedOpenSearch.uniquePrefix();
  private RawRecordIndices indices;

  ImporterOnRealStoreTest(SearchStore store, EmbeddedSearchStore node) {
    this.store = store;
    this.url = node.url();
  }

  @BeforeEach
  void expectedReadModel() {
    indices = new RawRecordIndices(sourcePrefix);
    ExporterOracle.export(url, expectedPrefix, RECORDS.partition(1));
    ExporterOracle.export(url, expectedPrefix, RECORDS.partition(2));
  }

  @Test
  void importsRecordsAcrossMidnightIntoTheReadModelOurExporterWrites() {
    RECORDS.writeTo(store, indices, r -> true);
    assertThat(store.indexExists(indices.dayIndex(ValueType.PROCESS_INSTANCE, "8.6.0", "2026-11-25"))).isTrue();
    assertThat(store.indexExists(indices.dayIndex(ValueType.PROCESS_INSTANCE, "8.6.0", "2026-11-26"))).isTrue();

    try (Importer importer = Importer.start(settings(url), new SimpleMeterRegistry())) {
      awaitCaughtUp(importer);
    }
    assertSameReadModel();
  }

  @Test
  void waitsForRecordsThatBecomeSearchableLateAndSkipsNone() {
    // a window of positions on partition 1, every value type, not searchable yet (as a bulk not yet refreshed)
    RECORDS.writeTo(store, indices, r -> !withheld(r));
    try (Importer importer = Importer.start(settings(url), new SimpleMeterRegistry())) {
      await("partition 2 imported, partition 1 up to the window").atMost(Duration.ofSeconds(30))
          .until(() -> importer.partitions().size() == 2 && importer.partitions().get(2).caughtUp()
              && importer.partitions().get(1).durable().lastPosition() > 50);
      // the types' missing records could lie anywhere after each type's last one: nothing at or past the window
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
          .until(() -> importer.partitions().get(1).durable().lastPosition() < 100);
      assertThat(importer.caughtUp()).as("caught up while records are missing").isFalse();

      RECORDS.writeTo(store, indices, this::withheld);
      awaitCaughtUp(importer);
    }
    assertSameReadModel();
  }

  private boolean withheld(SyntheticRawRecords.Stored stored) {
    return stored.record().getPartitionId() == 1 && stored.record().getPosition() >= 100
        && stored.record().getPosition() < 140;
  }

  @Test
  void losesNothingWhileTheStoreIsDown() throws Exception {
    RECORDS.writeTo(store, indices, r -> r.record().getPosition() < 150);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (StoreProxy proxy = new StoreProxy(url, null, null);
        Importer importer = Importer.start(settings(proxy.url()), meters)) {
      awaitCaughtUp(importer);
      proxy.down(true);
      RECORDS.writeTo(store, indices, r -> r.record().getPosition() >= 150);
      await("failed attempts while the store is down").atMost(Duration.ofSeconds(30))
          .until(() -> meters.find("flowpipe.importer.failures").counters().stream()
              .mapToDouble(c -> c.count()).sum() >= 4);
      proxy.down(false);
      awaitCaughtUp(importer);
    }
    assertSameReadModel();
  }

  @Test
  void resumesAfterItsCursorReadingNothingTwice() {
    RECORDS.writeTo(store, indices, r -> r.record().getPosition() < 150);
    try (Importer first = Importer.start(settings(url), new SimpleMeterRegistry())) {
      awaitCaughtUp(first);
    }
    RECORDS.writeTo(store, indices, r -> r.record().getPosition() >= 150);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (Importer second = Importer.start(settings(url), meters)) {
      awaitCaughtUp(second);
    }
    long remaining = RECORDS.records().stream().filter(r -> r.record().getPosition() >= 150).count();
    assertThat(meters.find("flowpipe.importer.records").counters().stream().mapToDouble(c -> c.count()).sum())
        .as("records the second importer imported: only those after the first one's cursor").isEqualTo(remaining);
    assertSameReadModel();
  }

  @Test
  void halvesPagesTheStoreRefusesAsTooLarge() throws Exception {
    RECORDS.writeTo(store, indices, r -> true);
    try (StoreProxy proxy = new StoreProxy(url, null, null).limitSearchSizeTo(20);
        Importer importer = Importer.start(settings(proxy.url()), new SimpleMeterRegistry())) {
      awaitCaughtUp(importer);
    }
    assertSameReadModel();
  }

  private ImporterSettings settings(String storeUrl) {
    return settings(storeUrl, sourcePrefix, actualPrefix);
  }

  /** Small pages and bulks, short intervals: a test's few hundred records cross many of each, quickly. */
  static ImporterSettings settings(String storeUrl, String sourcePrefix, String actualPrefix) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("flowpipe.importer.source-url", storeUrl);
    properties.put("flowpipe.importer.source-prefix", sourcePrefix);
    properties.put("flowpipe.importer.index-prefix", actualPrefix);
    properties.put("flowpipe.importer.page-size", 25);
    properties.put("flowpipe.importer.bulk-size", 40);
    properties.put("flowpipe.importer.visibility-grace", "100ms");
    properties.put("flowpipe.importer.poll-interval", "20ms");
    properties.put("flowpipe.importer.retry-backoff", "20ms");
    properties.put("flowpipe.importer.max-retry-backoff", "200ms");
    properties.put("flowpipe.importer.discovery-interval", "200ms");
    return ImporterSettings.fromProperties(properties, null);
  }

  static void awaitCaughtUp(Importer importer) {
    await("importer caught up").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
        .until(importer::caughtUp);
  }

  private void assertSameReadModel() {
    ExporterOracle.assertSameReadModel(store, expectedPrefix, actualPrefix);
  }
}
