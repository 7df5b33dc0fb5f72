package dev.flowpipe.exporter;

import static dev.flowpipe.exporter.Records.processInstance;
import static io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent.ELEMENT_ACTIVATING;
import static io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent.ELEMENT_COMPLETED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.exporter.config.ExporterConfiguration;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.StoreProxy;
import dev.flowpipe.schema.embedded.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.intent.JobIntent;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The exporter with the official exporter test harness, writing to a real OpenSearch. */
@ExtendWith(SharedOpenSearch.class)
class ReadModelExporterTest {

  private final SearchStore store;
  private final EmbeddedSearchStore sharedNode;
  private final String prefix = SharedOpenSearch.uniquePrefix();
  private final ExporterTestController controller = new ExporterTestController();
  private ReadModelExporter exporter;
  private ExporterTestContext context;

  ReadModelExporterTest(SearchStore store, EmbeddedSearchStore sharedNode) {
    this.store = store;
    this.sharedNode = sharedNode;
  }

  @AfterEach
  void closeExporter() {
    if (exporter != null) {
      exporter.close();
    }
  }

  private ReadModelExporter open(String url, Map<String, Object> overrides) {
    Map<String, Object> args = new HashMap<>();
    args.put(ExporterConfiguration.URL, url);
    args.put(ExporterConfiguration.INDEX_PREFIX, prefix);
    args.put(ExporterConfiguration.REFRESH_INTERVAL, "100ms");
    args.put(ExporterConfiguration.BULK_DELAY, "50ms");
    args.put(ExporterConfiguration.BULK_SIZE, 1000);
    args.putAll(overrides);
    ReadModelExporter opened = new ReadModelExporter();
    context = new ExporterTestContext().setConfiguration(new ExporterTestConfiguration<>("flowpipe", args, a -> a));
    opened.configure(context);
    opened.open(controller);
    exporter = opened;
    return opened;
  }

  private Optional<Map<String, Object>> instance(long key) {
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    return store.get(index, String.valueOf(key));
  }

  private boolean searchable(long key) {
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    return store.search(SearchQuery.of(index, List.of(new Criterion.Equals("key", key)), List.of(), 1)).total() > 0;
  }

  private double gauge(String name) {
    return context.getMeterRegistry().get(name).gauge().value();
  }

  /** Lets the bulk delay pass in real time, fires the exporter's timer, and waits for the bulk it started. */
  private void afterTheBulkDelay() throws InterruptedException {
    Thread.sleep(60);
    controller.runScheduledTasks(Duration.ofSeconds(1));
    exporter.awaitBulkInFlight();
  }

  @Nested
  class Acknowledgement {

    @Test
    void theArrivalDelayIsTakenOncePerBatchFromTheEngineTimestampOfItsFirstRecord() throws Exception {
      open(sharedNode.url(), Map.of());
      long writtenAt = System.currentTimeMillis() - 300;

      exporter.export(writtenAt(processInstance(10, 104, ELEMENT_ACTIVATING), writtenAt));
      exporter.export(writtenAt(processInstance(11, 104, ELEMENT_COMPLETED), System.currentTimeMillis() - 5_000));
      afterTheBulkDelay();
      exporter.export(writtenAt(processInstance(12, 105, ELEMENT_ACTIVATING), System.currentTimeMillis()));

      var arrival = context.getMeterRegistry().get("flowpipe.exporter.arrival.delay").timer();
      assertThat(arrival.count()).as("one per batch: the second record joined the first's").isEqualTo(2);
      assertThat(arrival.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isBetween(300.0, 5_000.0);
    }

    @SuppressWarnings("unchecked")
    private static Record<?> writtenAt(Record<?> record, long timestamp) {
      return io.camunda.zeebe.protocol.record.ImmutableRecord.builder()
          .from((Record<io.camunda.zeebe.protocol.record.RecordValue>) record).withTimestamp(timestamp).build();
    }

    @Test
    void aBufferedRecordIsNeitherWrittenNorAcknowledgedBeforeTheFlush() {
      open(sharedNode.url(), Map.of(ExporterConfiguration.BULK_DELAY, "1h"));

      exporter.export(processInstance(10, 100, ELEMENT_ACTIVATING));

      assertThat(controller.getPosition()).isEqualTo(-1);
      assertThat(instance(100)).isEmpty();
    }

    @Test
    void theTimerFlushesAfterTheBulkDelayAndOnlyThenAcknowledges() throws Exception {
      open(sharedNode.url(), Map.of());

      exporter.export(processInstance(10, 101, ELEMENT_ACTIVATING));
      afterTheBulkDelay();

      assertThat(instance(101)).hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "ACTIVE"));
      assertThat(controller.getPosition()).isEqualTo(10);
    }

    @Test
    void reachingTheBulkSizeFlushesAtOnce() {
      open(sharedNode.url(), Map.of(ExporterConfiguration.BULK_SIZE, 2, ExporterConfiguration.BULK_DELAY, "1h"));

      exporter.export(processInstance(10, 102, ELEMENT_ACTIVATING));
      exporter.export(processInstance(11, 102, ELEMENT_COMPLETED));
      assertThat(controller.getPosition()).as("two records, one document: below the bulk size").isEqualTo(-1);

      exporter.export(processInstance(12, 103, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).isEqualTo(12);
      assertThat(instance(102)).hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "COMPLETED"));
      assertThat(instance(103)).hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "ACTIVE"));
    }

    @Test
    void whatIsAcknowledgedIsAlreadySearchableWithBulkRefreshAndOnlyAfterARefreshWithout() {
      // no scheduled refresh on these indices: only the bulk's own refresh makes anything searchable
      open(sharedNode.url(), Map.of(ExporterConfiguration.REFRESH_INTERVAL, "-1", ExporterConfiguration.BULK_SIZE, 1));
      exporter.export(processInstance(10, 104, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).isEqualTo(10);
      assertThat(searchable(104)).isTrue();
      exporter.close();

      open(sharedNode.url(), Map.of(ExporterConfiguration.REFRESH_INTERVAL, "-1", ExporterConfiguration.BULK_SIZE, 1,
          ExporterConfiguration.BULK_REFRESH, "false"));
      exporter.export(processInstance(11, 105, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).isEqualTo(11);
      assertThat(searchable(105)).isFalse();
      assertThat(instance(105)).as("written, only not yet searchable").isPresent();
    }

    @Test
    void aRecordWithNothingToWriteIsAcknowledgedAtOnceWhenNothingIsBuffered() {
      open(sharedNode.url(), Map.of(ExporterConfiguration.BULK_DELAY, "1h"));

      exporter.export(Records.unhandled(7));

      assertThat(controller.getPosition()).isEqualTo(7);
    }

    @Test
    void closingFlushesWhatIsBuffered() {
      open(sharedNode.url(), Map.of(ExporterConfiguration.BULK_DELAY, "1h"));
      exporter.export(processInstance(10, 103, ELEMENT_ACTIVATING));

      exporter.close();
      exporter = null;

      assertThat(controller.getPosition()).isEqualTo(10);
      assertThat(instance(103)).isPresent();
    }
  }

  /** With {@code bulks-in-flight} 2: a slow bulk does not hold up the next, and positions stay in order. */
  @Nested
  class TwoBulksInFlight {

    /** Every record is a bulk of its own (size 1), written through {@code proxy}. */
    private void openWithTwoBulksInFlight(StoreProxy proxy, Map<String, Object> more) {
      Map<String, Object> args = new HashMap<>(more);
      args.put(ExporterConfiguration.BULKS_IN_FLIGHT, 2);
      args.put(ExporterConfiguration.BULK_SIZE, 1);
      args.put(ExporterConfiguration.BULK_DELAY, "1h");
      open(proxy.url(), args);
    }

    /** Holds the next bulk, exports an instance's activation that goes in it, and returns once it is held. */
    private StoreProxy.HeldBulk holdBulkOf(StoreProxy proxy, long position, long key) throws InterruptedException {
      StoreProxy.HeldBulk held = proxy.holdNextBulk();
      exporter.export(processInstance(position, key, ELEMENT_ACTIVATING));
      assertThat(held.awaitArrival()).isTrue();
      return held;
    }

    /**
     * Waits until the instance is in the store. The export that carries it may have come while the bulk before was
     * still ending (its document searchable, its write not yet returned); then the timer sends it.
     */
    private void awaitWritten(long key) {
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        controller.runScheduledTasks(Duration.ofHours(2));
        return instance(key).isPresent();
      });
    }

    @Test
    void laterBulksGoWhileASlowOneIsWrittenButNoPositionIsAcknowledgedPastIt() throws Exception {
      try (StoreProxy proxy = new StoreProxy(sharedNode.url(), null, null)) {
        openWithTwoBulksInFlight(proxy, Map.of());
        StoreProxy.HeldBulk slow = holdBulkOf(proxy, 10, 300);

        exporter.export(processInstance(11, 301, ELEMENT_ACTIVATING));
        await().atMost(Duration.ofSeconds(30)).until(() -> instance(301).isPresent());
        // the instance in the slow bulk changes again: its next version starts from the one in flight
        exporter.export(processInstance(12, 300, ELEMENT_COMPLETED));
        awaitWritten(300);

        assertThat(instance(300)).hasValueSatisfying(doc -> assertThat(doc)
            .containsEntry("state", "COMPLETED").containsKey("startDate").containsKey("bpmnProcessId"));
        assertThat(controller.getPosition()).as("the slow bulk's record is not durable yet").isEqualTo(-1);
        assertThat(gauge("flowpipe.exporter.lag.records")).isEqualTo(3);

        slow.release();
        exporter.awaitBulkInFlight();

        assertThat(controller.getPosition()).isEqualTo(12);
        assertThat(gauge("flowpipe.exporter.lag.records")).isZero();
        assertThat(instance(300)).as("the slow bulk's older version did not overwrite the later one")
            .hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "COMPLETED"));
      }
    }

    @Test
    void whenAnEarlierBulkFailsALaterOneThatSucceededAcknowledgesNothingUntilTheEarlierIsWrittenAgain()
        throws Exception {
      try (StoreProxy proxy = new StoreProxy(sharedNode.url(), null, null)) {
        openWithTwoBulksInFlight(proxy,
            Map.of(ExporterConfiguration.RETRY_BACKOFF, "1ms", ExporterConfiguration.MAX_RETRY_BACKOFF, "2ms"));
        StoreProxy.HeldBulk failing = holdBulkOf(proxy, 10, 320);
        exporter.export(processInstance(11, 321, ELEMENT_ACTIVATING));
        await().atMost(Duration.ofSeconds(30)).until(() -> instance(321).isPresent());

        failing.fail();
        exporter.awaitBulkInFlight();

        assertThat(controller.getPosition()).as("position 10 is not durable, so neither is anything after it")
            .isEqualTo(-1);
        assertThat(gauge("flowpipe.exporter.lag.records")).isEqualTo(2);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
          controller.runScheduledTasks(Duration.ofHours(2)); // the retry, once the back-off has passed
          exporter.awaitBulkInFlight();
          return controller.getPosition() == 11;
        });
        assertThat(instance(320)).isPresent();
        assertThat(gauge("flowpipe.exporter.lag.records")).isZero();
      }
    }

    @Test
    void afterAFailedBulkNoNewBulkGoesUntilTheOnesInFlightHaveEnded() throws Exception {
      // the bulk behind a failed one cannot acknowledge; a new bulk going now could not either, and under steady load
      // acknowledgement would never resume. So the next bulk waits, and then carries all that is not durable
      try (StoreProxy proxy = new StoreProxy(sharedNode.url(), null, null)) {
        openWithTwoBulksInFlight(proxy,
            Map.of(ExporterConfiguration.RETRY_BACKOFF, "1ms", ExporterConfiguration.MAX_RETRY_BACKOFF, "2ms"));
        StoreProxy.HeldBulk failing = holdBulkOf(proxy, 10, 330);
        StoreProxy.HeldBulk slow = holdBulkOf(proxy, 11, 331);

        failing.fail();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
          controller.runScheduledTasks(Duration.ofHours(2)); // settles the failed bulk
          return context.getMeterRegistry().get("flowpipe.exporter.failures").counter().count() >= 1;
        });
        exporter.export(processInstance(12, 332, ELEMENT_ACTIVATING));
        Thread.sleep(50); // past the back-off
        controller.runScheduledTasks(Duration.ofHours(2));
        Thread.sleep(200);
        assertThat(instance(332)).as("a bulk is still in flight behind the failed one").isEmpty();

        slow.release();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
          controller.runScheduledTasks(Duration.ofHours(2));
          exporter.awaitBulkInFlight();
          return controller.getPosition() == 12;
        });
        assertThat(instance(330)).isPresent();
        assertThat(instance(331)).isPresent();
        assertThat(instance(332)).isPresent();
      }
    }

    @Test
    void behindOneSlowBulkOnlyABoundedNumberOfEndedBulksWaitToBeSettled() throws Exception {
      // each ended bulk keeps its batch until the slow one before it is settled: without a cap, a hung bulk would
      // hold an ever longer queue of them in memory
      try (StoreProxy proxy = new StoreProxy(sharedNode.url(), null, null)) {
        openWithTwoBulksInFlight(proxy, Map.of());
        StoreProxy.HeldBulk slow = holdBulkOf(proxy, 10, 400);
        int behind = ReadModelExporter.MAX_UNSETTLED - 1;
        for (int i = 1; i <= behind; i++) {
          long key = 400 + i;
          exporter.export(processInstance(10 + i, key, ELEMENT_ACTIVATING));
          awaitWritten(key);
        }

        long capped = 400 + behind + 1;
        exporter.export(processInstance(10 + behind + 1, capped, ELEMENT_ACTIVATING));
        controller.runScheduledTasks(Duration.ofHours(2));
        Thread.sleep(200);
        assertThat(instance(capped)).as("%d bulks wait behind the slow one: no more go", behind).isEmpty();
        assertThat(controller.getPosition()).isEqualTo(-1);

        slow.release();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
          controller.runScheduledTasks(Duration.ofHours(2));
          exporter.awaitBulkInFlight();
          return controller.getPosition() == 10 + behind + 1;
        });
        assertThat(instance(400)).isPresent();
        assertThat(instance(capped)).isPresent();
        assertThat(gauge("flowpipe.exporter.lag.records")).isZero();
      }
    }

    @Test
    void aThirdBulkWaitsWhileTwoAreBeingWritten() throws Exception {
      try (StoreProxy proxy = new StoreProxy(sharedNode.url(), null, null)) {
        openWithTwoBulksInFlight(proxy, Map.of());
        StoreProxy.HeldBulk first = holdBulkOf(proxy, 10, 310);
        StoreProxy.HeldBulk second = holdBulkOf(proxy, 11, 311);

        exporter.export(processInstance(12, 312, ELEMENT_ACTIVATING));
        Thread.sleep(200);
        assertThat(instance(312)).as("two bulks are being written: the third waits").isEmpty();

        second.release();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
          controller.runScheduledTasks(Duration.ofHours(2)); // the timer looks again at what is due
          return instance(312).isPresent();
        });
        assertThat(controller.getPosition()).isEqualTo(-1);

        first.release();
        exporter.awaitBulkInFlight();
        assertThat(controller.getPosition()).isEqualTo(12);
      }
    }
  }

  @Test
  void aBulkTooLargeForTheStoreIsSplitAndADocumentTooLargeAloneGoesToTheDeadLetters() throws Exception {
    try (StoreProxy limited = new StoreProxy(sharedNode.url(), null, null).limitBodyTo(4_000)) {
      open(limited.url(), Map.of(ExporterConfiguration.BULK_DELAY, "1h", ExporterConfiguration.BULK_SIZE, 3,
          ExporterConfiguration.VARIABLE_VALUE_LIMIT, 100_000));

      exporter.export(Records.variableCreated(1, 501, "small", "\"a\""));
      exporter.export(Records.variableCreated(2, 502, "also-small", "\"b\""));
      exporter.export(Records.variableCreated(3, 503, "huge", "\"" + "x".repeat(6_000) + "\""));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).as("the exporter went on").isEqualTo(3);
      String variables = ReadModelIndex.VARIABLE.indexName(prefix);
      assertThat(store.getAll(variables, List.of("501", "502", "503"))).containsOnlyKeys("501", "502");
      String deadLetters = ReadModelIndex.DEAD_LETTER.indexName(prefix);
      store.refresh(deadLetters);
      assertThat(store.findByField(deadLetters, "documentId", "503", 10)).singleElement().satisfies(letter -> {
        assertThat(letter).containsEntry("status", 413).containsEntry("targetIndex", variables);
        assertThat((String) letter.get("document")).contains("huge");
      });
      assertThat(context.getMeterRegistry().get("flowpipe.exporter.dead.letters").counter().count()).isEqualTo(1);
    }
  }

  /**
   * The broker reuses one record object per value type. A change applied after {@code export()} returned (here: a job
   * forgotten at once, so its base is read from the store by the bulk) must hold the values of its own record.
   */
  @Test
  void changesAppliedAfterExportReturnedHoldTheirOwnRecordsValuesThoughTheBrokerReusesTheRecordObject() {
    open(sharedNode.url(), Map.of(ExporterConfiguration.BULK_DELAY, "1h", ExporterConfiguration.RECENT_DOCUMENTS, 0));
    ReusedRecords broker = new ReusedRecords();
    for (int job = 0; job < 3; job++) {
      exporter.export(broker.show(Records.job(10 + job, 700 + job, 7000 + job, JobIntent.CREATED, 3, "")));
    }
    exporter.close(); // written, and forgotten (no recent documents): the next changes read their base
    open(sharedNode.url(), Map.of(ExporterConfiguration.BULK_DELAY, "1h", ExporterConfiguration.RECENT_DOCUMENTS, 0));
    for (int job = 0; job < 3; job++) {
      exporter.export(broker.show(Records.job(20 + job, 700 + job, 7000 + job, JobIntent.FAILED, job, "boom-" + job)));
    }
    exporter.export(broker.show(Records.variableCreated(30, 800, "other", "\"late\"")));
    exporter.close();

    String jobs = ReadModelIndex.JOB.indexName(prefix);
    for (int job = 0; job < 3; job++) {
      int expected = job;
      assertThat(store.get(jobs, String.valueOf(700 + job))).hasValueSatisfying(doc -> assertThat(doc)
          .containsEntry("state", "FAILED").containsEntry("errorMessage", "boom-" + expected)
          .containsEntry("retries", expected).containsEntry("processInstanceKey", 7000 + expected));
    }
  }

  @Test
  void replayingTheStreamFromAnEarlierPositionLeavesTheSameDocuments() throws Exception {
    List<Record<?>> stream =
        List.of(
            processInstance(1, 200, ELEMENT_ACTIVATING),
            processInstance(2, 201, ELEMENT_ACTIVATING),
            processInstance(3, 200, ELEMENT_COMPLETED),
            Records.unhandled(4),
            processInstance(5, 201, ELEMENT_COMPLETED));
    open(sharedNode.url(), Map.of());
    stream.forEach(exporter::export);
    afterTheBulkDelay();
    Map<String, Object> first200 = instance(200).orElseThrow();
    Map<String, Object> first201 = instance(201).orElseThrow();

    // a restarted exporter is handed the stream again from an earlier position
    exporter.close();
    open(sharedNode.url(), Map.of());
    stream.subList(1, stream.size()).forEach(exporter::export);
    afterTheBulkDelay();
    stream.forEach(exporter::export);
    afterTheBulkDelay();

    assertThat(instance(200)).hasValue(first200);
    assertThat(instance(201)).hasValue(first201);
    assertThat(first200).containsEntry("state", "COMPLETED").containsEntry("position", 3);
  }

  @Test
  void opensBeforeTheStoreIsUpAndNeverAcknowledgesWhileItIsDown(@TempDir Path data) throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    var settings =
        new EmbeddedSearchStore.Settings(EmbeddedSearchStore.Engine.OPENSEARCH, port, 0, 512, Duration.ofSeconds(90), Duration.ofSeconds(15),
            EmbeddedSearchStore.Settings.forTests().classpath(), null, 0, List.of());
    EmbeddedSearchStore ownStore = EmbeddedSearchStore.launch(data, settings);
    try {
      // the broker may open the exporter while the store is still booting: that must not fail
      open(ownStore.url(), Map.of(ExporterConfiguration.BULK_SIZE, 2, ExporterConfiguration.RETRY_BACKOFF, "10ms",
          ExporterConfiguration.MAX_RETRY_BACKOFF, "20ms", ExporterConfiguration.REQUEST_TIMEOUT, "2s",
          ExporterConfiguration.CONNECT_TIMEOUT, "1s"));
      ownStore.awaitReady();
      exporter.export(processInstance(10, 299, ELEMENT_ACTIVATING));
      // the first connection creates the indices, which a busy machine may not finish within the request timeout
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        afterTheBulkDelay();
        assertThat(controller.getPosition()).as("connected once the store was up").isEqualTo(10);
      });

      ownStore.close();

      exporter.export(processInstance(20, 300, ELEMENT_ACTIVATING));
      afterTheBulkDelay();
      assertThat(controller.getPosition()).as("nothing acknowledged while the store is down").isEqualTo(10);
      exporter.export(processInstance(21, 300, ELEMENT_COMPLETED));
      exporter.export(processInstance(22, 301, ELEMENT_ACTIVATING));
      exporter.export(processInstance(23, 302, ELEMENT_ACTIVATING));
      exporter.export(processInstance(24, 303, ELEMENT_ACTIVATING));
      Thread.sleep(30);
      assertThatThrownBy(() -> exporter.export(processInstance(25, 304, ELEMENT_ACTIVATING)))
          .as("a full buffer (twice the bulk size) refuses more records so the broker sees the lag")
          .hasMessageContaining("export buffer full");
      assertThat(controller.getPosition()).isEqualTo(10);
      assertThat(gauge("flowpipe.exporter.lag.records")).as("lag in records while the store is down").isEqualTo(5);
      assertThat(gauge("flowpipe.exporter.lag.age")).as("age of the oldest change, ms").isPositive();
      assertThat(context.getMeterRegistry().get("flowpipe.exporter.failures").counter().count()).isPositive();

      ownStore = EmbeddedSearchStore.start(data, settings);
      afterTheBulkDelay();

      // the circuit breaker may hold the first attempts back after the outage: give it the time it asks for
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        controller.runScheduledTasks(Duration.ofSeconds(1));
        assertThat(controller.getPosition()).isEqualTo(24);
      });
      assertThat(gauge("flowpipe.exporter.lag.records")).as("lag gone once the store is back").isZero();
      assertThat(gauge("flowpipe.exporter.lag.age")).isZero();
      try (SearchStore again =
          dev.flowpipe.schema.store.SearchStoreConnector.connect(
              dev.flowpipe.schema.store.StoreConnection.of(ownStore.url()))) {
        String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
        assertThat(again.get(instances, "300"))
            .hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "COMPLETED"));
        assertThat(again.getAll(instances, List.of("301", "302", "303"))).hasSize(3);
      }
    } finally {
      exporter.close();
      exporter = null;
      ownStore.close();
    }
  }
}
