package dev.flowpipe.exporter;

import static dev.flowpipe.exporter.Records.processInstance;
import static dev.flowpipe.exporter.Records.variable;
import static io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent.ELEMENT_ACTIVATING;
import static io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent.ELEMENT_COMPLETED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.VariableEntries;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreRefusedException;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.StoreProxy;
import dev.flowpipe.writer.config.WriterSettings;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.intent.JobIntent;
import io.camunda.zeebe.protocol.record.intent.IncidentIntent;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import io.camunda.zeebe.protocol.record.intent.VariableIntent;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Nested;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
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
    return open(url, prefix, overrides);
  }

  private ReadModelExporter open(String url, String indexPrefix, Map<String, Object> overrides) {
    Map<String, Object> args = new HashMap<>();
    args.put(WriterSettings.URL, url);
    args.put(WriterSettings.INDEX_PREFIX, indexPrefix);
    args.put(WriterSettings.REFRESH_INTERVAL, "100ms");
    args.put(WriterSettings.BULK_DELAY, "50ms");
    args.put(WriterSettings.BULK_SIZE, 1000);
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

  @Test
  void whatIsAcknowledgedIsAlreadySearchableWithBulkRefreshAndOnlyAfterARefreshWithout() {
    // no scheduled refresh on these indices: only the bulk's own refresh makes anything searchable
    open(sharedNode.url(), Map.of(WriterSettings.REFRESH_INTERVAL, "-1", WriterSettings.BULK_SIZE, 1));
    exporter.export(processInstance(10, 104, ELEMENT_ACTIVATING));
    exporter.awaitBulkInFlight();
    assertThat(controller.getPosition()).isEqualTo(10);
    assertThat(searchable(104)).isTrue();
    exporter.close();

    open(sharedNode.url(), Map.of(WriterSettings.REFRESH_INTERVAL, "-1", WriterSettings.BULK_SIZE, 1,
        WriterSettings.BULK_REFRESH, "false"));
    exporter.export(processInstance(11, 105, ELEMENT_ACTIVATING));
    exporter.awaitBulkInFlight();
    assertThat(controller.getPosition()).isEqualTo(11);
    assertThat(searchable(105)).isFalse();
    assertThat(instance(105)).as("written, only not yet searchable").isPresent();
  }

  @Test
  void aBulkTooLargeForTheStoreIsSplitAndADocumentTooLargeAloneGoesToTheDeadLetters() throws Exception {
    try (StoreProxy limited = new StoreProxy(sharedNode.url(), null, null).limitBodyTo(4_000)) {
      open(limited.url(), Map.of(WriterSettings.BULK_DELAY, "1h", WriterSettings.BULK_SIZE, 3,
          WriterSettings.VARIABLE_VALUE_LIMIT, 100_000));

      List<Record<?>> records = List.of(Records.variableCreated(1, 501, "small", "\"a\""),
          Records.variableCreated(2, 502, "also-small", "\"b\""),
          Records.variableCreated(3, 503, "huge", "\"" + "x".repeat(6_000) + "\""));
      records.forEach(exporter::export);
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).as("the exporter went on").isEqualTo(3);
      // a restarted exporter is handed the same records again: the letter is written over itself
      exporter.close();
      open(limited.url(), Map.of(WriterSettings.BULK_DELAY, "1h", WriterSettings.BULK_SIZE, 3,
          WriterSettings.VARIABLE_VALUE_LIMIT, 100_000));
      records.forEach(exporter::export);
      exporter.awaitBulkInFlight();

      String variables = ReadModelIndex.VARIABLE.indexName(prefix);
      assertThat(store.getAll(variables, List.of("501", "502", "503"))).containsOnlyKeys("501", "502");
      String deadLetters = ReadModelIndex.DEAD_LETTER.indexName(prefix);
      store.refresh(deadLetters);
      assertThat(store.findByField(deadLetters, "documentId", "503", 10)).singleElement().satisfies(letter -> {
        assertThat(letter).containsEntry("status", 413).containsEntry("targetIndex", variables);
        assertThat((String) letter.get("document")).contains("huge");
      });
      assertThat(context.getMeterRegistry().get("flowpipe.exporter.dead.letters").counter().count())
          .as("counted each time, stored once").isEqualTo(1);
    }
  }

  /**
   * The broker reuses one record object per value type. A change applied after {@code export()} returned (here: a job
   * forgotten at once, so its base is read from the store by the bulk) must hold the values of its own record.
   */
  @Test
  void changesAppliedAfterExportReturnedHoldTheirOwnRecordsValuesThoughTheBrokerReusesTheRecordObject() {
    open(sharedNode.url(), Map.of(WriterSettings.BULK_DELAY, "1h", WriterSettings.RECENT_DOCUMENTS, 0));
    ReusedRecords broker = new ReusedRecords();
    for (int job = 0; job < 3; job++) {
      exporter.export(broker.show(Records.job(10 + job, 700 + job, 7000 + job, JobIntent.CREATED, 3, "")));
    }
    exporter.close(); // written, and forgotten (no recent documents): the next changes read their base
    open(sharedNode.url(), Map.of(WriterSettings.BULK_DELAY, "1h", WriterSettings.RECENT_DOCUMENTS, 0));
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
    exporter.close(); // flushes
    Map<String, Object> first200 = instance(200).orElseThrow();
    Map<String, Object> first201 = instance(201).orElseThrow();

    // a restarted exporter is handed the stream again from an earlier position, and then all of it again
    open(sharedNode.url(), Map.of());
    stream.subList(1, stream.size()).forEach(exporter::export);
    exporter.close();
    open(sharedNode.url(), Map.of());
    stream.forEach(exporter::export);
    exporter.close();

    assertThat(instance(200)).hasValue(first200);
    assertThat(instance(201)).hasValue(first201);
    assertThat(first200).containsEntry("state", "COMPLETED").containsEntry("position", 3);
  }

  /**
   * For cuts every {@code step} records: the stream written up to the cut (durable), then again from an earlier
   * position (a replay is a suffix of the log), each into a read model of its own; the instance must be {@code clean}.
   */
  private void assertReplaysLeave(Map<String, Object> clean, List<Record<?>> stream, long instanceKey, int step) {
    for (int cut = 1; cut < stream.size(); cut += step) {
      String replayed = SharedOpenSearch.uniquePrefix();
      open(sharedNode.url(), replayed, Map.of());
      stream.subList(0, cut).forEach(exporter::export);
      exporter.close();
      open(sharedNode.url(), replayed, Map.of());
      stream.subList(cut / 2, stream.size()).forEach(exporter::export);
      exporter.close();
      assertThat(store.get(ReadModelIndex.PROCESS_INSTANCE.indexName(replayed), String.valueOf(instanceKey)))
          .as("replayed from %d after a cut at %d", cut / 2, cut).hasValue(clean);
    }
  }

  @Test
  void aStoresRefusalGivesOneReasonWhateverTheSizeOfTheRetrysBulkSoItIsLoggedOnce() {
    // seen on a node: a read-only store's refusal logged at each retry, the bulk growing from 13 records to 20
    String store = " refused with HTTP 403 (a block forbids it): {\"type\":\"cluster_block_exception\"}";
    String first = ReadModelExporter.refusal(new StoreRefusedException("bulk of 13" + store, 403, null));
    String retry = ReadModelExporter.refusal(new StoreRefusedException("bulk of 20" + store, 403, null));

    assertThat(retry).isEqualTo(first).contains("HTTP 403", "a bulk refused", "cluster_block_exception");
  }

  @Nested
  class TheVariableFilterEntriesOfAnInstance {

    private static final long INSTANCE = 400;
    private static final long TASK_SCOPE = 410;

    /**
     * The engine's order: the creation command's variables come before the process element activates; then a local
     * variable of a task, an update of one, and a second scope holding a name the instance holds too.
     */
    private final List<Record<?>> stream = List.of(
        variable(1, 401, VariableIntent.CREATED, INSTANCE, INSTANCE, "tier", "\"gold\""),
        variable(2, 402, VariableIntent.CREATED, INSTANCE, INSTANCE, "total", "120"),
        variable(3, 403, VariableIntent.CREATED, INSTANCE, INSTANCE, "a=b", "1"),
        processInstance(4, INSTANCE, ELEMENT_ACTIVATING),
        variable(5, 411, VariableIntent.CREATED, TASK_SCOPE, INSTANCE, "tier", "\"gold\""),
        variable(6, 401, VariableIntent.UPDATED, INSTANCE, INSTANCE, "tier", "\"silver\""),
        variable(7, 412, VariableIntent.CREATED, TASK_SCOPE, INSTANCE, "note", "\"" + "x".repeat(9000) + "\""),
        processInstance(8, INSTANCE, ELEMENT_COMPLETED));

    private final String[] expected = {
        "a\\=b=1", VariableEntries.entry("note", "\"" + "x".repeat(9000) + "\""), "tier=\"gold\"",
        "tier=\"silver\"", "total=120"};

    @Test
    void holdEveryVariableOfAnyScopeByItsLastValueAndKeepTheInstanceFieldsWrittenAfterThem() {
      open(sharedNode.url(), Map.of());
      stream.forEach(exporter::export);
      exporter.close();

      Map<String, Object> document = instance(INSTANCE).orElseThrow();
      assertThat(document).containsEntry("state", "COMPLETED").containsEntry("bpmnProcessId", "order");
      // tier is silver in the instance's scope now, and still gold in the task's
      assertThat(document.get(VariableEntries.FIELD)).asInstanceOf(InstanceOfAssertFactories.LIST)
          .containsExactly((Object[]) expected);
      // a long value is held shortened, with a hash of it: the filter's entry for the same value is the same
      assertThat(((String) ((List<?>) document.get(VariableEntries.FIELD)).get(1)))
          .hasSize(VariableEntries.SHORTENED_CHARS).startsWith("note=\"xxx");
    }

    @Test
    void areTheSameAfterAReplayFromAnyPosition() {
      open(sharedNode.url(), Map.of());
      stream.forEach(exporter::export);
      exporter.close();
      Map<String, Object> clean = instance(INSTANCE).orElseThrow();

      assertReplaysLeave(clean, stream, INSTANCE, 1);
    }

    @Test
    void findTheInstanceByAnEntryAndNotByAValueItNoLongerHoldsAnywhere() {
      open(sharedNode.url(), Map.of());
      stream.forEach(exporter::export);
      exporter.export(variable(9, 411, VariableIntent.UPDATED, TASK_SCOPE, INSTANCE, "tier", "\"bronze\""));
      exporter.close();
      String index = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
      java.util.function.Function<String, Long> found = entry -> store.search(
          SearchQuery.of(index, List.of(new Criterion.Equals(VariableEntries.FIELD, entry)), List.of(), 10)).total();

      assertThat(found.apply("tier=\"silver\"")).isEqualTo(1);
      assertThat(found.apply("tier=\"bronze\"")).isEqualTo(1);
      assertThat(found.apply("tier=\"gold\"")).as("no scope holds gold any more").isZero();
      assertThat(found.apply("total=120")).isEqualTo(1);
    }
  }

  @Nested
  class TheTermsOfTheFiltersOnOtherEntities {

    private static final long INSTANCE = 500;

    /**
     * A task that fails without retries (an incident), is retried and completes; a second task whose job failed with
     * retries left; a third task terminated while its incident is open, its resolution written after.
     */
    private final List<Record<?>> stream = List.of(
        processInstance(1, INSTANCE, ELEMENT_ACTIVATING),
        Records.element(2, 510, INSTANCE, "charge", ELEMENT_ACTIVATING),
        Records.job(3, 520, INSTANCE, JobIntent.CREATED, 1, null),
        Records.job(4, 520, INSTANCE, JobIntent.FAILED, 0, "card declined"),
        Records.incident(5, 530, INSTANCE, 510, "charge", IncidentIntent.CREATED, "card declined"),
        Records.incident(6, 530, INSTANCE, 510, "charge", IncidentIntent.RESOLVED, "card declined"),
        Records.element(7, 510, INSTANCE, "charge", ELEMENT_COMPLETED),
        Records.element(8, 511, INSTANCE, "ship", ELEMENT_ACTIVATING),
        Records.job(9, 521, INSTANCE, JobIntent.CREATED, 3, null),
        Records.job(10, 521, INSTANCE, JobIntent.FAILED, 2, "try again"),
        Records.element(11, 512, INSTANCE, "pack", ELEMENT_ACTIVATING),
        Records.incident(12, 531, INSTANCE, 512, "pack", IncidentIntent.CREATED, "no box"),
        Records.element(13, 512, INSTANCE, "pack", ProcessInstanceIntent.ELEMENT_TERMINATED),
        Records.incident(14, 531, INSTANCE, 512, "pack", IncidentIntent.RESOLVED, "no box"));

    private Map<String, Object> afterExporting(List<Record<?>> records) {
      open(sharedNode.url(), Map.of());
      records.forEach(exporter::export);
      exporter.close();
      return instance(INSTANCE).orElseThrow();
    }

    @Test
    void holdTheOpenIncidentsMessagesTheJobsWithRetriesLeftAndEachElementsStateAndFlag() {
      Map<String, Object> whileOpen = afterExporting(stream.subList(0, 12));
      assertThat(whileOpen.get("incidentErrorMessages")).isEqualTo(List.of("no box"));
      assertThat(whileOpen.get("incidentErrorHashCodes")).isEqualTo(List.of(String.valueOf("no box".hashCode())));
      assertThat(whileOpen.get("retriesLeftJobKeys")).isEqualTo(List.of(521));
      assertThat(whileOpen.get("elementInstanceEntries")).asInstanceOf(InstanceOfAssertFactories.LIST)
          .contains("id=pack|state=ACTIVE|inc=true", "id=charge|state=COMPLETED|inc=false",
              "id=ship|state=ACTIVE|inc=false")
          .doesNotContain("id=charge|state=ACTIVE|inc=false", "id=charge|inc=true");

      Map<String, Object> after = afterExporting(stream.subList(12, stream.size()));
      assertThat(after.get("incidentErrorMessages")).isEqualTo(List.of());
      assertThat(after.get("incidentErrorHashCodes")).isEqualTo(List.of());
      assertThat(after.get("elementInstanceEntries")).asInstanceOf(InstanceOfAssertFactories.LIST)
          .contains("id=pack|state=TERMINATED|inc=false")
          .doesNotContain("id=pack|state=ACTIVE|inc=true", "id=pack|state=ACTIVE|inc=false", "inc=true");
    }

    /** What the 8.9 incident statistics count: an error's hash stays while any open incident of it does. */
    @Test
    void holdAnErrorsHashCodeOnceUntilItsLastOpenIncidentIsResolved() {
      List<Record<?>> twoOfOneError = List.of(
          processInstance(1, INSTANCE, ELEMENT_ACTIVATING),
          Records.element(2, 510, INSTANCE, "charge", ELEMENT_ACTIVATING),
          Records.element(3, 511, INSTANCE, "ship", ELEMENT_ACTIVATING),
          Records.incident(4, 530, INSTANCE, 510, "charge", IncidentIntent.CREATED, "no box"),
          Records.incident(5, 531, INSTANCE, 511, "ship", IncidentIntent.CREATED, "no box"),
          Records.incident(6, 530, INSTANCE, 510, "charge", IncidentIntent.RESOLVED, "no box"),
          Records.incident(7, 531, INSTANCE, 511, "ship", IncidentIntent.RESOLVED, "no box"));
      String hash = String.valueOf("no box".hashCode());

      assertThat(afterExporting(twoOfOneError.subList(0, 5)).get("incidentErrorHashCodes")).isEqualTo(List.of(hash));
      assertThat(afterExporting(twoOfOneError.subList(5, 6)).get("incidentErrorHashCodes")).isEqualTo(List.of(hash));
      Map<String, Object> resolved = afterExporting(twoOfOneError.subList(6, 7));
      assertThat(resolved.get("incidentErrorHashCodes")).isEqualTo(List.of());
      assertReplaysLeave(resolved, twoOfOneError, INSTANCE, 2);
    }

    @Test
    void areTheSameAfterAReplayFromAnyPosition() {
      Map<String, Object> clean = afterExporting(stream);
      assertReplaysLeave(clean, stream, INSTANCE, 3);
    }
  }

  @Test
  void opensBeforeTheStoreIsUpConnectsOnceItIsAndNeverAcknowledgesWhileItIsDown(@TempDir Path data)
      throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    var settings =
        new EmbeddedSearchStore.Settings(EmbeddedSearchStore.Engine.OPENSEARCH, port, 0, 512, Duration.ofSeconds(90),
            Duration.ofSeconds(15), EmbeddedSearchStore.Settings.forTests().classpath(), null, 0,
            // C1 only, as the tests' other store JVMs (NodeProcess.TEST_JIT)
            NodeProcess.testJitOptions(), null, null);
    EmbeddedSearchStore ownStore = EmbeddedSearchStore.launch(data, settings);
    try {
      // the broker may open the exporter while the store is still booting: that must not fail
      open(ownStore.url(), Map.of(WriterSettings.BULK_SIZE, 1, WriterSettings.RETRY_BACKOFF, "10ms",
          WriterSettings.MAX_RETRY_BACKOFF, "20ms", WriterSettings.REQUEST_TIMEOUT, "2s",
          WriterSettings.CONNECT_TIMEOUT, "1s"));
      exporter.export(processInstance(10, 299, ELEMENT_ACTIVATING));
      ownStore.awaitReady();
      // the first connection creates the indices, which a busy machine may not finish within the request timeout
      awaitPosition(10);

      ownStore.close();
      exporter.export(processInstance(20, 300, ELEMENT_ACTIVATING));
      await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> {
        controller.runScheduledTasks(Duration.ofSeconds(1));
        exporter.awaitBulkInFlight();
        return context.getMeterRegistry().get("flowpipe.exporter.failures").counter().count() >= 2;
      });
      assertThat(controller.getPosition()).as("nothing acknowledged while the store is down").isEqualTo(10);

      ownStore = EmbeddedSearchStore.start(data, settings);
      // the circuit breaker may hold the first attempts back after the outage: give it the time it asks for
      awaitPosition(20);
      try (SearchStore again =
          dev.flowpipe.schema.store.SearchStoreConnector.connect(
              dev.flowpipe.schema.store.StoreConnection.of(ownStore.url()))) {
        assertThat(again.get(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), "300")).isPresent();
      }
    } finally {
      exporter.close();
      exporter = null;
      ownStore.close();
    }
  }

  /** Runs the exporter's timers (on real time: this test's context has the system clock) until it acknowledged. */
  private void awaitPosition(long position) {
    await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
      controller.runScheduledTasks(Duration.ofSeconds(1));
      exporter.awaitBulkInFlight();
      return controller.getPosition() == position;
    });
  }
}
