package dev.flowpipe.exporter;

import dev.flowpipe.writer.ReadModelWriter;
import dev.flowpipe.writer.config.WriterSettings;
import static dev.flowpipe.exporter.Records.processInstance;
import static io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent.ELEMENT_ACTIVATING;
import static io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent.ELEMENT_COMPLETED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.flowpipe.exporter.health.ExporterHealth;
import dev.flowpipe.exporter.identity.LogIdentity;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.writer.batch.BulkPipeline;
import dev.flowpipe.writer.handler.DocumentChange;
import dev.flowpipe.writer.handler.ExportHandler;
import io.camunda.zeebe.exporter.api.context.Configuration;
import io.camunda.zeebe.exporter.api.context.Context;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.intent.VariableIntent;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exporter's flushing, acknowledgement, retry and bounded waits, against an in-memory store ({@link FakeStore})
 * and a clock that moves only when the test moves it: no test here sleeps. What only a real store shows is in
 * {@link ReadModelExporterTest}.
 */
class ExporterPipelineTest {

  private static final String PREFIX = "test";
  private static final String INSTANCES = ReadModelIndex.PROCESS_INSTANCE.indexName(PREFIX);

  private final FakeStore store = new FakeStore();
  private final ManualClock clock = new ManualClock();
  private final MeterRegistry meters = new SimpleMeterRegistry();
  // the broker's side of one partition: a test that wipes the broker's state gives the next exporter a new one
  private ExporterTestController controller = new ExporterTestController();
  private ReadModelExporter exporter;

  @AfterEach
  void closeExporter() {
    if (exporter != null) {
      exporter.close();
    }
  }

  private ReadModelExporter open(Map<String, Object> overrides) {
    return open(overrides, null);
  }

  private ReadModelExporter open(Map<String, Object> overrides, List<ExportHandler> handlers) {
    Map<String, Object> args = new HashMap<>();
    args.put(WriterSettings.URL, "http://fake:9200");
    args.put(WriterSettings.INDEX_PREFIX, PREFIX);
    args.put(WriterSettings.BULK_DELAY, "100ms");
    args.put(WriterSettings.RETRY_BACKOFF, "100ms");
    args.put(WriterSettings.MAX_RETRY_BACKOFF, "1s");
    args.putAll(overrides);
    exporter = new ReadModelExporter(connection -> store, Duration.ofMillis(200), Duration.ofMillis(200), Runnable::run);
    exporter.configure(new ClockedContext(args));
    if (handlers == null) {
      exporter.open(controller);
    } else {
      exporter.open(controller, handlers);
    }
    return exporter;
  }

  /** Lets time pass on the exporter's clock and runs the timers due by then, as the broker's actor would. */
  private void tick(Duration elapsed) {
    clock.advance(elapsed);
    controller.runScheduledTasks(elapsed);
  }

  private Optional<Map<String, Object>> instance(long key) {
    return store.document(INSTANCES, String.valueOf(key));
  }

  /** The partition's export position as the store holds it, or -1. */
  private long exportPosition() {
    return store.document(ReadModelIndex.EXPORT_POSITION.indexName(PREFIX), ReadModelIndex.exportPositionId(1))
        .map(marker -> ((Number) marker.get("position")).longValue()).orElse(-1L);
  }

  private double gauge(String name) {
    return meters.get(name).gauge().value();
  }

  @Nested
  class Flushing {

    @Test
    void aBufferedRecordIsNeitherWrittenNorAcknowledgedBeforeTheDelay() {
      open(Map.of());
      exporter.export(processInstance(10, 100, ELEMENT_ACTIVATING));

      tick(Duration.ofMillis(99));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).isEqualTo(-1);
      assertThat(instance(100)).isEmpty();
    }

    @Test
    void onAQuietPathTheTimerFlushesOnceTheOldestRecordHasWaitedTheDelayAndOnlyThenAcknowledges() {
      open(Map.of());
      exporter.export(processInstance(10, 101, ELEMENT_ACTIVATING));

      tick(Duration.ofMillis(100));
      exporter.awaitBulkInFlight();

      assertThat(instance(101)).hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "ACTIVE"));
      assertThat(controller.getPosition()).isEqualTo(10);
      assertThat(exportPosition()).as("marked durable for read-your-writes").isEqualTo(10);
    }

    @Test
    void onABusyPathTheExportCallFlushesWhenTheOldestRecordHasWaitedTheDelay() {
      open(Map.of(WriterSettings.BULK_SIZE, 100_000));
      for (int i = 1; i <= 100; i++) {
        exporter.export(processInstance(i, 1000 + i, ELEMENT_ACTIVATING));
        clock.advance(Duration.ofMillis(1)); // the timer never runs: only the export path can flush
      }
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).as("the first record has waited 99 ms").isEqualTo(-1);

      exporter.export(processInstance(101, 1101, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).as("at 100 ms the export path flushed all").isEqualTo(101);
      assertThat(store.bulks()).isEqualTo(1);
    }

    @Test
    void reachingTheBulkSizeFlushesAtOnce() {
      open(Map.of(WriterSettings.BULK_SIZE, 2, WriterSettings.BULK_DELAY, "1h"));

      exporter.export(processInstance(10, 102, ELEMENT_ACTIVATING));
      exporter.export(processInstance(11, 102, ELEMENT_COMPLETED));
      assertThat(controller.getPosition()).as("two records, one document: below the bulk size").isEqualTo(-1);
      exporter.export(processInstance(12, 103, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).isEqualTo(12);
      assertThat(instance(102)).hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "COMPLETED"));
    }

    @Test
    void aRecordWithNothingToWriteIsAcknowledgedAtOnceWhenNothingIsBuffered() {
      open(Map.of(WriterSettings.BULK_DELAY, "1h"));

      exporter.export(Records.unhandled(7));

      assertThat(controller.getPosition()).isEqualTo(7);
    }

    @Test
    void aRecordWithNothingToWriteIsMarkedDurableOnTheNextTimerSoAReaderWaitingForItsPositionGoesOn() {
      open(Map.of());
      exporter.export(processInstance(10, 105, ELEMENT_ACTIVATING));
      tick(Duration.ofMillis(100));
      exporter.awaitBulkInFlight();
      assertThat(exportPosition()).isEqualTo(10);

      exporter.export(Records.unhandled(11));
      exporter.export(Records.unhandled(12));
      assertThat(controller.getPosition()).isEqualTo(12);

      tick(Duration.ofMillis(100));
      exporter.awaitBulkInFlight();
      assertThat(exportPosition()).as("both marked by one write, without a bulk").isEqualTo(12);
    }

    @Test
    void closingFlushesWhatIsBuffered() {
      open(Map.of(WriterSettings.BULK_DELAY, "1h"));
      exporter.export(processInstance(10, 104, ELEMENT_ACTIVATING));

      exporter.close();
      exporter = null;

      assertThat(controller.getPosition()).isEqualTo(10);
      assertThat(instance(104)).isPresent();
    }

    @Test
    void theArrivalDelayIsTakenOncePerBatchFromTheEngineTimestampOfItsFirstRecord() {
      open(Map.of());
      long now = clock.millis();
      exporter.export(writtenAt(processInstance(10, 105, ELEMENT_ACTIVATING), now - 300));
      exporter.export(writtenAt(processInstance(11, 105, ELEMENT_COMPLETED), now - 5_000));
      tick(Duration.ofMillis(100));
      exporter.awaitBulkInFlight();
      exporter.export(writtenAt(processInstance(12, 106, ELEMENT_ACTIVATING), clock.millis()));

      var arrival = meters.get("flowpipe.exporter.arrival.delay").timer();
      assertThat(arrival.count()).as("one per batch: the second record joined the first's").isEqualTo(2);
      assertThat(arrival.max(TimeUnit.MILLISECONDS)).isEqualTo(300.0);
    }
  }

  @Nested
  class Failures {

    @Test
    void aFailedFlushAcknowledgesNothingAndIsRetriedAfterTheBackOffOnTheClock() {
      open(Map.of());
      store.failNextBulks(1);
      exporter.export(processInstance(10, 200, ELEMENT_ACTIVATING));
      tick(Duration.ofMillis(100));
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).isEqualTo(-1);
      assertThat(gauge("flowpipe.exporter.lag.records")).isEqualTo(1);

      tick(Duration.ofMillis(50));
      exporter.awaitBulkInFlight();
      assertThat(store.bulks()).as("within the back-off (100 ms +-25%%): no new attempt").isEqualTo(1);

      tick(Duration.ofMillis(100));
      exporter.awaitBulkInFlight();
      tick(Duration.ofMillis(1));
      assertThat(controller.getPosition()).isEqualTo(10);
      assertThat(gauge("flowpipe.exporter.lag.records")).isZero();
    }

    @Test
    void whileTheStoreCannotBeReachedTheExporterOpensBuffersAndConnectsOnceItCan() {
      store.reachable(false);
      open(Map.of());
      tick(Duration.ofSeconds(3)); // the node starting: no record waits yet
      exporter.export(writtenAt(processInstance(10, 210, ELEMENT_ACTIVATING), clock.millis()));
      tick(Duration.ofMillis(100));
      assertThat(controller.getPosition()).isEqualTo(-1);
      assertThat(gauge("flowpipe.exporter.lag.age")).as("the record waits, though the store was never reached")
          .isEqualTo(100.0);

      store.reachable(true);
      tick(Duration.ofSeconds(1));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).isEqualTo(10);
    }

    @Test
    void aFullBufferRefusesTheRecordAfterABoundedWaitWhileABulkHangs() {
      open(Map.of(WriterSettings.BULK_SIZE, 1, WriterSettings.BULK_DELAY, "1h"));
      FakeStore.Hold hung = store.holdNextBulk();
      exporter.export(processInstance(10, 220, ELEMENT_ACTIVATING)); // in flight, hung
      exporter.export(processInstance(11, 221, ELEMENT_ACTIVATING)); // buffered behind it
      exporter.export(processInstance(12, 222, ELEMENT_ACTIVATING)); // buffered: twice the bulk size, full

      long start = System.nanoTime();
      assertThatThrownBy(() -> exporter.export(processInstance(13, 223, ELEMENT_ACTIVATING)))
          .as("refused, so the broker offers it again and sees the lag")
          .hasMessageContaining("export buffer full");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the broker's thread was let go")
          .isLessThan(Duration.ofSeconds(5));

      hung.release();
      exporter.export(processInstance(13, 223, ELEMENT_ACTIVATING)); // offered again: taken
      exporter.awaitBulkInFlight();
      tick(Duration.ofMillis(2)); // the timer looks again soon at what had to wait for the bulk in flight
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).isEqualTo(13);
    }

    @Test
    void closingWhileABulkHangsReturnsWithinItsBoundAndAcknowledgesNothing() {
      open(Map.of(WriterSettings.BULK_SIZE, 1));
      FakeStore.Hold hung = store.holdNextBulk();
      exporter.export(processInstance(10, 230, ELEMENT_ACTIVATING));

      long start = System.nanoTime();
      exporter.close();
      exporter = null;

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThat(controller.getPosition()).isEqualTo(-1);
      hung.fail();
    }
  }

  @Nested
  class PoisonRecords {

    /** Throws on the instance with key 666, as a handler with a bug would. */
    private final ExportHandler brittle = new ExportHandler() {
      @Override
      public boolean handles(Record<?> record) {
        return record.getKey() == 666;
      }

      @Override
      public List<DocumentChange> changes(Record<?> record) {
        throw new IllegalStateException("cannot handle " + record.getKey());
      }
    };

    private List<ExportHandler> handlers() {
      List<ExportHandler> handlers = new ArrayList<>(ReadModelWriter.handlers(
          WriterSettings.fromArguments(Map.of(WriterSettings.URL, "http://fake:9200",
              WriterSettings.INDEX_PREFIX, PREFIX))));
      handlers.add(brittle);
      return handlers;
    }

    @Test
    void aRecordAHandlerThrowsOnGoesToTheDeadLettersOnceWithTheReasonAndExportingGoesOn() {
      open(Map.of(WriterSettings.BULK_DELAY, "1h"), handlers());
      exporter.export(processInstance(10, 666, ELEMENT_ACTIVATING));
      exporter.export(processInstance(11, 300, ELEMENT_ACTIVATING));
      exporter.close();

      // the broker replays both after a restart: still one letter
      open(Map.of(WriterSettings.BULK_DELAY, "1h"), handlers());
      exporter.export(processInstance(10, 666, ELEMENT_ACTIVATING));
      exporter.export(processInstance(11, 300, ELEMENT_ACTIVATING));
      exporter.close();
      exporter = null;

      String deadLetters = ReadModelIndex.DEAD_LETTER.indexName(PREFIX);
      assertThat(store.count(deadLetters)).isEqualTo(1);
      assertThat(store.document(deadLetters, "record-1-10")).hasValueSatisfying(letter -> {
        assertThat(letter).containsEntry("status", 0).containsEntry("position", 10L).containsEntry("partitionId", 1);
        assertThat((String) letter.get("reason")).contains("cannot handle 666").contains("PROCESS_INSTANCE");
        assertThat((String) letter.get("document")).as("the record").containsPattern("\"?key\"?[=:]666");
      });
      assertThat(instance(666)).as("the other handlers' changes of the record stand").isPresent();
      assertThat(instance(300)).isPresent();
      assertThat(controller.getPosition()).isEqualTo(11);
      assertThat(meters.get("flowpipe.exporter.dead.letters").counter().count()).isEqualTo(2);
    }
  }

  /**
   * A partition's exporter is closed when its node steps down and a new one opened when it leads again, in the same
   * JVM and meter registry: the lag gauges must then read the new exporter, not the closed one.
   */
  @Nested
  class Reopened {

    @Test
    void theLagGaugesReadTheExporterOpenedLastNotAClosedOne() {
      open(Map.of(WriterSettings.BULK_DELAY, "1h", WriterSettings.BULK_SIZE, 1));
      exporter.export(processInstance(10, 500, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();
      tick(Duration.ofMillis(1));
      assertThat(gauge("flowpipe.exporter.position.durable")).isEqualTo(10);
      exporter.close();

      open(Map.of(WriterSettings.BULK_DELAY, "1h", WriterSettings.BULK_SIZE, 1));
      exporter.export(processInstance(20, 501, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();
      tick(Duration.ofMillis(1));

      assertThat(gauge("flowpipe.exporter.position.durable")).isEqualTo(20);
    }
  }

  /**
   * An instance deleted from the read model (ADR 0019): its records stay in the broker's log, and a replay of them
   * writes none of its documents, while the others' are written and every position acknowledged.
   */
  @Nested
  class DeletedInstances {

    @Test
    void aReplayWritesNoDocumentOfADeletedInstanceAndStillAcknowledgesItsRecords() {
      store.put(dev.flowpipe.schema.deletion.DeletedInstances.indexName(PREFIX), "700",
          Map.of("processInstanceKey", 700L, "partitionId", 1));
      open(Map.of(WriterSettings.BULK_DELAY, "1h", WriterSettings.BULK_SIZE, 3));

      exporter.export(processInstance(10, 700, ELEMENT_ACTIVATING));
      exporter.export(Records.variable(11, 701, io.camunda.zeebe.protocol.record.intent.VariableIntent.CREATED, 700,
          700, "x", "1"));
      exporter.export(processInstance(12, 702, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();
      tick(Duration.ofMillis(1));

      assertThat(instance(700)).isEmpty();
      assertThat(store.document(ReadModelIndex.VARIABLE.indexName(PREFIX), "701")).isEmpty();
      assertThat(instance(702)).isPresent();
      assertThat(controller.getPosition()).isEqualTo(12);
    }
  }

  private ExporterHealth.Report health() {
    List<ExporterHealth.Report> reports = ExporterHealth.reportsFor(meters);
    assertThat(reports).hasSize(1);
    return reports.getFirst();
  }

  /** Errors the exporter logs while {@code action} runs. */
  private List<String> errorsLoggedDuring(Runnable action) {
    var logger = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(ExporterPipelineTest.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      action.run();
    } finally {
      logger.detachAppender(appender);
    }
    return appender.list.stream().filter(event -> event.getLevel() == Level.ERROR)
        .map(ILoggingEvent::getFormattedMessage).toList();
  }

  /**
   * A store that refuses the exporter's writes for what it is set to (a user without write rights, a write block):
   * nothing is lost or acknowledged, the health says why, and exporting resumes by itself once the store takes writes.
   */
  @Nested
  class StoreRefusingWrites {

    private static final String CLUSTER_BLOCK =
        "[cluster_block_exception] blocked by: [FORBIDDEN/6/cluster read-only (api)];";
    private static final String INDEX_BLOCK =
        "cluster_block_exception: index [test-read-model-v2] blocked by: [FORBIDDEN/8/index write (api)];";

    @Test
    void aWholeBulkRefusedWith403TurnsHealthDownWithTheStoresReasonOnceAndUpWhenABulkIsWrittenWithNothingLost() {
      open(Map.of());
      store.refuseWholeBulks(403, CLUSTER_BLOCK);
      List<String> errors = errorsLoggedDuring(() -> {
        exporter.export(processInstance(10, 600, ELEMENT_ACTIVATING));
        for (int i = 0; i < 20; i++) {
          tick(Duration.ofMillis(500)); // retries up to the 1 s back-off limit
          exporter.awaitBulkInFlight();
        }
      });

      assertThat(store.bulks()).as("tried again and again").isGreaterThan(5);
      assertThat(controller.getPosition()).as("nothing acknowledged").isEqualTo(-1);
      assertThat(instance(600)).isEmpty();
      assertThat(health().status()).isEqualTo(ExporterHealth.Status.DOWN);
      assertThat(health().reason()).contains("HTTP 403").contains(CLUSTER_BLOCK);
      assertThat(gauge("flowpipe.exporter.health")).isZero();
      assertThat(errors).as("the reason logged once, not per retry").hasSize(1);
      assertThat(errors.getFirst()).contains(CLUSTER_BLOCK);

      store.acceptWrites();
      tick(Duration.ofSeconds(1));
      exporter.awaitBulkInFlight();
      tick(Duration.ofMillis(1));

      assertThat(controller.getPosition()).isEqualTo(10);
      assertThat(instance(600)).isPresent();
      assertThat(health().status()).isEqualTo(ExporterHealth.Status.UP);
      assertThat(gauge("flowpipe.exporter.health")).isEqualTo(1);
    }

    @Test
    void documentsRefusedOneByOneWith403AreRetriedNotDeadLetteredAndTheHealthSaysWhy() {
      open(Map.of());
      store.refuseEachDocument(403, INDEX_BLOCK);
      exporter.export(processInstance(10, 610, ELEMENT_ACTIVATING));
      tick(Duration.ofMillis(100));
      exporter.awaitBulkInFlight();
      tick(Duration.ofSeconds(1));
      exporter.awaitBulkInFlight();

      assertThat(store.bulks()).isGreaterThan(1);
      assertThat(controller.getPosition()).isEqualTo(-1);
      assertThat(store.count(ReadModelIndex.DEAD_LETTER.indexName(PREFIX))).as("no dead letter").isZero();
      assertThat(health().status()).isEqualTo(ExporterHealth.Status.DOWN);
      assertThat(health().reason()).contains("HTTP 403").contains(INDEX_BLOCK);

      store.acceptWrites();
      tick(Duration.ofSeconds(1));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).isEqualTo(10);
      assertThat(instance(610)).isPresent();
      assertThat(health().status()).isEqualTo(ExporterHealth.Status.UP);
    }

    @Test
    void aStoreThatIsDownLeavesTheExporterHealthUpForTheStoresOwnHealthSaysSo() {
      open(Map.of());
      store.failNextBulks(3);
      exporter.export(processInstance(10, 620, ELEMENT_ACTIVATING));
      tick(Duration.ofMillis(100));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).isEqualTo(-1);
      assertThat(health().status()).isEqualTo(ExporterHealth.Status.UP);
    }
  }

  /**
   * Which broker log the store's read model comes from: recorded by the first exporter, carried in the broker as the
   * exporter's metadata, and checked before anything is written or acknowledged.
   */
  @Nested
  class LogIdentities {

    private Optional<LogIdentity> storedIdentity() {
      return store.document(ReadModelIndex.LOG_IDENTITY.indexName(PREFIX), ReadModelIndex.logIdentityId(1))
          .map(LogIdentity::of);
    }

    private Optional<String> brokersLogId() {
      return controller.readMetadata().flatMap(LogIdentity::logIdOf);
    }

    /** A first exporter on a new log and an empty store: writes and acknowledges up to position 11. */
    private void firstLogExported() {
      open(Map.of(WriterSettings.BULK_SIZE, 2));
      exporter.export(processInstance(10, 700, ELEMENT_ACTIVATING));
      exporter.export(processInstance(11, 701, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();
      tick(Duration.ofMillis(1));
      assertThat(controller.getPosition()).isEqualTo(11);
      exporter.close();
      exporter = null;
    }

    @Test
    void theFirstExporterRecordsItsLogInTheStoreAndAcknowledgesWithTheLogsId() {
      firstLogExported();

      assertThat(storedIdentity()).isPresent();
      assertThat(storedIdentity().get().firstPosition()).isEqualTo(10);
      assertThat(brokersLogId()).contains(storedIdentity().get().logId());
    }

    @Test
    void aBrokerWhoseLogWasWipedIsRefusedWithNothingWrittenOrAcknowledgedAndTheHealthNamesBothLogs() {
      firstLogExported();
      String storesLog = storedIdentity().orElseThrow().logId();

      controller = new ExporterTestController(); // the broker's data wiped: no position, no metadata
      open(Map.of(WriterSettings.BULK_SIZE, 1));
      exporter.export(writtenAt(processInstance(1, 800, ELEMENT_ACTIVATING), clock.millis()));
      exporter.export(writtenAt(processInstance(2, 801, ELEMENT_ACTIVATING), clock.millis()));
      tick(Duration.ofSeconds(1));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).isEqualTo(-1);
      assertThat(instance(800)).isEmpty();
      assertThat(instance(801)).isEmpty();
      assertThat(storedIdentity().orElseThrow().logId()).isEqualTo(storesLog);
      assertThat(health().status()).isEqualTo(ExporterHealth.Status.DOWN);
      assertThat(health().reason()).contains(storesLog).contains("starts again at position 1")
          .contains("exported up to position 11").contains("wipe-read-model");
    }

    @Test
    void aBrokerWithAnotherLogsIdIsRefused() {
      firstLogExported();
      controller = new ExporterTestController();
      controller.updateLastExportedRecordPosition(50, LogIdentity.metadata("another-cluster"));
      open(Map.of(WriterSettings.BULK_SIZE, 1));
      exporter.export(processInstance(51, 900, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).isEqualTo(50);
      assertThat(instance(900)).isEmpty();
      assertThat(health().reason()).contains("another-cluster").contains(storedIdentity().orElseThrow().logId());
    }

    @Test
    void aReplicaTakingOverWithTheLogsIdExportsOn() {
      firstLogExported();
      byte[] metadata = controller.readMetadata().orElseThrow();
      controller = new ExporterTestController(); // another node: its state came from the leader's
      controller.updateLastExportedRecordPosition(11, metadata);
      open(Map.of(WriterSettings.BULK_SIZE, 1));
      exporter.export(processInstance(12, 702, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).isEqualTo(12);
      assertThat(instance(702)).isPresent();
      assertThat(health().status()).isEqualTo(ExporterHealth.Status.UP);
    }

    @Test
    void theSameLogWhoseIdTheBrokerLostBeforeASnapshotIsKnownByItsFirstRecordAndExportsOn() {
      firstLogExported();
      String storesLog = storedIdentity().orElseThrow().logId();
      controller = new ExporterTestController(); // state back to before the first acknowledgement: from the start
      open(Map.of(WriterSettings.BULK_SIZE, 3));
      exporter.export(processInstance(10, 700, ELEMENT_ACTIVATING));
      exporter.export(processInstance(11, 701, ELEMENT_ACTIVATING));
      exporter.export(processInstance(12, 703, ELEMENT_ACTIVATING));
      exporter.awaitBulkInFlight();
      tick(Duration.ofMillis(1));

      assertThat(controller.getPosition()).isEqualTo(12);
      assertThat(instance(703)).isPresent();
      assertThat(brokersLogId()).contains(storesLog);
    }

    @Test
    void nothingIsAcknowledgedBeforeTheStoresSideIsKnownEvenRecordsThatChangeNoDocument() {
      store.reachable(false);
      open(Map.of());
      exporter.export(Records.unhandled(10)); // changes no document
      tick(Duration.ofMillis(100));
      assertThat(controller.getPosition()).isEqualTo(-1);

      store.reachable(true);
      tick(Duration.ofSeconds(1));
      tick(Duration.ofMillis(10));

      assertThat(controller.getPosition()).isEqualTo(10);
      assertThat(brokersLogId()).isPresent();
    }
  }

  /** With {@code bulks-in-flight} 2 and every record a bulk of its own: a slow bulk does not hold up the next. */
  @Nested
  class TwoBulksInFlight {

    private void openWithTwoBulksInFlight() {
      open(Map.of(WriterSettings.BULKS_IN_FLIGHT, 2, WriterSettings.BULK_SIZE, 1,
          WriterSettings.BULK_DELAY, "1h"));
    }

    @Test
    void laterBulksGoWhileASlowOneIsWrittenButNoPositionIsAcknowledgedPastIt() {
      openWithTwoBulksInFlight();
      // as the engine writes it, a variable of the creation command first: the instance's document is then known
      // (an activation alone is an update whose base a bulk reads from the store, and the next version would wait)
      exporter.export(Records.variable(9, 399, VariableIntent.CREATED, 400, 400, "x", "1"));
      awaitDocument(400);
      exporter.awaitBulkInFlight();
      FakeStore.Hold slow = holdBulkOf(10, 400);
      exporter.export(processInstance(11, 401, ELEMENT_ACTIVATING));
      awaitDocument(401);
      // the instance in the slow bulk changes again: its next version starts from the one in flight
      exporter.export(processInstance(12, 400, ELEMENT_COMPLETED));
      await(() -> instance(400).filter(doc -> "COMPLETED".equals(doc.get("state"))).isPresent());

      assertThat(instance(400)).hasValueSatisfying(doc -> assertThat(doc)
          .containsEntry("state", "COMPLETED").containsKey("startDate").containsKey("bpmnProcessId"));
      assertThat(controller.getPosition()).as("the slow bulk's record is not durable yet").isEqualTo(9);
      assertThat(gauge("flowpipe.exporter.lag.records")).isEqualTo(3);

      slow.release();
      exporter.awaitBulkInFlight();

      assertThat(controller.getPosition()).isEqualTo(12);
      assertThat(gauge("flowpipe.exporter.lag.records")).isZero();
      assertThat(instance(400)).as("the slow bulk's older version did not overwrite the later one")
          .hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "COMPLETED"));
    }

    @Test
    void whenAnEarlierBulkFailsALaterOneThatSucceededAcknowledgesNothingUntilTheEarlierIsWrittenAgain() {
      openWithTwoBulksInFlight();
      FakeStore.Hold failing = holdBulkOf(10, 410);
      exporter.export(processInstance(11, 411, ELEMENT_ACTIVATING));
      awaitDocument(411);

      failing.fail();
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).as("position 10 is not durable, so neither is anything after it")
          .isEqualTo(-1);
      assertThat(exportPosition()).as("nor marked so for read-your-writes").isEqualTo(-1);
      assertThat(gauge("flowpipe.exporter.lag.records")).isEqualTo(2);

      tick(Duration.ofMillis(200)); // past the back-off: the retry
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).isEqualTo(11);
      assertThat(instance(410)).isPresent();
    }

    @Test
    void afterAFailedBulkNoNewBulkGoesUntilTheOnesInFlightHaveEnded() {
      // the bulk behind a failed one cannot acknowledge; a new bulk going now could not either, and under steady load
      // acknowledgement would never resume. So the next bulk waits, and then carries all that is not durable
      openWithTwoBulksInFlight();
      FakeStore.Hold failing = holdBulkOf(10, 420);
      FakeStore.Hold slow = holdBulkOf(11, 421);
      failing.fail();
      awaitBulksEnded(1);
      tick(Duration.ofMillis(1)); // settles the failed bulk

      exporter.export(processInstance(12, 422, ELEMENT_ACTIVATING));
      tick(Duration.ofMillis(200)); // past the back-off
      assertThat(store.bulks()).as("a bulk is still in flight behind the failed one: none goes").isEqualTo(2);

      slow.release();
      exporter.awaitBulkInFlight();
      tick(Duration.ofMillis(200));
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).isEqualTo(12);
      assertThat(instance(420)).isPresent();
      assertThat(instance(422)).isPresent();
    }

    @Test
    void behindOneSlowBulkOnlyABoundedNumberOfEndedBulksWaitToBeSettled() {
      // each ended bulk keeps its batch until the slow one before it is settled: without a cap, a hung bulk would
      // hold an ever longer queue of them in memory
      openWithTwoBulksInFlight();
      FakeStore.Hold slow = holdBulkOf(10, 500);
      int behind = BulkPipeline.MAX_UNSETTLED - 1;
      for (int i = 1; i <= behind; i++) {
        exporter.export(processInstance(10 + i, 500 + i, ELEMENT_ACTIVATING));
        awaitDocument(500 + i);
      }

      long capped = 500 + behind + 1;
      exporter.export(processInstance(10 + behind + 1, capped, ELEMENT_ACTIVATING));
      tick(Duration.ofMillis(10));
      assertThat(store.bulks()).as("%d bulks wait behind the slow one: no more go", behind).isEqualTo(behind + 1);

      slow.release();
      exporter.awaitBulkInFlight();
      tick(Duration.ofMillis(10));
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).isEqualTo(10 + behind + 1);
      assertThat(instance(capped)).isPresent();
    }

    @Test
    void aThirdBulkWaitsWhileTwoAreBeingWritten() {
      openWithTwoBulksInFlight();
      FakeStore.Hold first = holdBulkOf(10, 510);
      FakeStore.Hold second = holdBulkOf(11, 511);

      exporter.export(processInstance(12, 512, ELEMENT_ACTIVATING));
      assertThat(store.bulks()).as("two bulks are being written: the third waits").isEqualTo(2);

      second.release();
      awaitBulksEnded(1);
      tick(Duration.ofMillis(2)); // the timer looks again at what is due
      awaitDocument(512);
      assertThat(controller.getPosition()).isEqualTo(-1);

      first.release();
      exporter.awaitBulkInFlight();
      assertThat(controller.getPosition()).isEqualTo(12);
    }

    /** Holds the next bulk, exports an instance's activation that goes in it, and returns once it is held. */
    private FakeStore.Hold holdBulkOf(long position, long key) {
      FakeStore.Hold held = store.holdNextBulk();
      exporter.export(processInstance(position, key, ELEMENT_ACTIVATING));
      return held.awaitArrival();
    }

    /**
     * Until the document is in the store: a bulk thread writes it, and the bulk that carries it may wait for one in
     * flight to end, after which the timer (run here, 1 ms of the clock per look) hands it over.
     */
    private void awaitDocument(long key) {
      await(() -> instance(key).isPresent());
    }

    private void await(java.util.function.BooleanSupplier written) {
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).pollInSameThread()
          .pollInterval(Duration.ofMillis(1)).until(() -> {
        tick(Duration.ofMillis(1));
        return written.getAsBoolean();
      });
    }

    /** Until the store has answered this many bulks (bulk threads end them). */
    private void awaitBulksEnded(int count) {
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.endedBulks() >= count);
    }
  }

  @SuppressWarnings("unchecked")
  private static Record<?> writtenAt(Record<?> record, long timestamp) {
    return io.camunda.zeebe.protocol.record.ImmutableRecord.builder()
        .from((Record<io.camunda.zeebe.protocol.record.RecordValue>) record).withTimestamp(timestamp).build();
  }

  /** The official test context, with this test's clock and meters. */
  private final class ClockedContext implements Context {
    private final ExporterTestContext delegate;

    ClockedContext(Map<String, Object> args) {
      delegate = new ExporterTestContext().setConfiguration(new ExporterTestConfiguration<>("flowpipe", args, a -> a));
    }

    @Override
    public MeterRegistry getMeterRegistry() {
      return meters;
    }

    @Override
    public Logger getLogger() {
      return LoggerFactory.getLogger(ExporterPipelineTest.class);
    }

    @Override
    public InstantSource clock() {
      return clock;
    }

    @Override
    public Configuration getConfiguration() {
      return delegate.getConfiguration();
    }

    @Override
    public int getPartitionId() {
      return 1;
    }

    @Override
    public void setFilter(RecordFilter filter) {
      delegate.setFilter(filter);
    }
  }
}
