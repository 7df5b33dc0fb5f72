package dev.flowpipe.exporter;

import dev.flowpipe.exporter.config.ExporterConfiguration;
import dev.flowpipe.exporter.health.ExporterHealth;
import dev.flowpipe.exporter.identity.LogIdentity;
import dev.flowpipe.exporter.identity.LogIdentityGate;
import dev.flowpipe.exporter.identity.LogIdentityStore;
import dev.flowpipe.exporter.metrics.ExporterMetrics;
import dev.flowpipe.writer.retention.PeriodRouter;
import dev.flowpipe.writer.retention.RetentionArguments;
import dev.flowpipe.schema.retention.RetentionSettings;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreRefusedException;
import dev.flowpipe.schema.store.StoreUnavailableException;
import dev.flowpipe.writer.PartitionWriting;
import dev.flowpipe.writer.ReadModelWriter;
import dev.flowpipe.writer.batch.BulkFlushPolicy;
import dev.flowpipe.writer.batch.BulkFlushPolicy.Reason;
import dev.flowpipe.writer.batch.BulkPipeline;
import dev.flowpipe.writer.batch.DocumentBuffer;
import dev.flowpipe.writer.config.WriterSettings;
import dev.flowpipe.writer.handler.DocumentChange;
import dev.flowpipe.writer.handler.ExportHandler;
import dev.flowpipe.writer.store.QuietPositionMarks;
import dev.flowpipe.writer.store.RetryPolicy;
import dev.flowpipe.writer.store.StoreSession;
import io.camunda.zeebe.exporter.api.Exporter;
import io.camunda.zeebe.exporter.api.context.Context;
import io.camunda.zeebe.exporter.api.context.Context.RecordFilter;
import io.camunda.zeebe.exporter.api.context.Controller;
import io.camunda.zeebe.exporter.api.context.ScheduledTask;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.slf4j.Logger;

/**
 * The in-broker exporter: Zeebe's Exporter API adapted onto the {@link ReadModelWriter} that the importer writes
 * through too. Engine records go through the writer's handlers into read-model documents, folded per document in its
 * {@link DocumentBuffer} and written in bulks by the {@link BulkPipeline} through the {@link StoreSession}. A record's position is acknowledged only after everything buffered up to it is durable, so
 * after a crash the broker replays from there, and position-versioned writes make that replay harmless.
 *
 * <p>Flushes happen when the {@link BulkFlushPolicy} says so, checked on the export path (so a busy path never starves
 * the delay) and by a timer (so a quiet one still flushes). After a failure the {@link RetryPolicy} decides when to
 * try again. Time comes from the exporter context's clock.
 *
 * <p>The broker calls every method on the exporter's actor, a thread that every partition's exporters and snapshot
 * writers share, so no wait here is unbounded: a full buffer waits at most {@link #FULL_BUFFER_WAIT} for the bulks in
 * flight and then refuses the record (the broker offers it again later and sees the lag), and closing waits at most
 * {@link #CLOSE_WAIT}. Connecting to the store, preparing its schema (which may mean migrating an older one) and
 * checking which log its read model comes from run on a thread of the {@link StoreSession}'s: the actor only looks
 * whether they are done, and meanwhile buffers records without acknowledging them.
 *
 * <p>Nothing is written or acknowledged before the {@link LogIdentityGate} knows that the store's read model of the
 * partition comes from this broker log. A store that refuses the exporter's writes (a whole bulk answered 4xx, items
 * answered 401/403) is tried again for ever, as an unreachable one is, and turns the exporter's {@link ExporterHealth}
 * DOWN with the store's reason until a bulk is written.
 */
public final class ReadModelExporter implements Exporter {

  /** Longest wait of a record for room in a full buffer before it is refused. */
  static final Duration FULL_BUFFER_WAIT = Duration.ofSeconds(1);

  /** Longest wait at close for the bulks in flight and a last flush. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  /** How often the timer looks whether connecting and the log check are done. */
  private static final Duration WAITING_LOOK = Duration.ofMillis(10);

  private final Function<StoreConnection, SearchStore> connector;
  private final Duration fullBufferWait;
  private final Duration closeWait;
  // null: a thread of the session's own, made at opening
  private final Executor sessionExecutor;

  private Logger log;
  private ExporterConfiguration config;
  private WriterSettings settings;
  private BulkFlushPolicy policy;
  private MeterRegistry meterRegistry;
  private int partitionId;
  private InstantSource clock;

  private Controller controller;
  private ReadModelWriter writer;
  private StoreSession<IdentitySide> session;
  private RetentionSettings retention = RetentionSettings.off();
  private PeriodRouter router;
  private ExecutorService sessionThread;
  private ExporterHealth health;
  private LogIdentityGate identity;
  private RetryPolicy retry;
  private BulkPipeline pipeline;
  private QuietPositionMarks quietMarks;
  private DocumentBuffer buffer;
  private ExporterMetrics metrics;
  private ScheduledTask timer;
  // clock nanos at which the timer runs next
  private long timerDueNanos;
  private boolean lastBulkFailed;
  // read by the lag gauges from other threads: engine time of the oldest record buffered
  private volatile long bufferedOldestTimestamp = -1;
  private volatile long acknowledgedPosition = -1;
  private long openedAtMillis;

  /** The broker's constructor: the store is reached through the official clients. */
  public ReadModelExporter() {
    this(SearchStoreConnector::connect, FULL_BUFFER_WAIT, CLOSE_WAIT, null);
  }

  /**
   * With another way to reach a store (tests hand in an in-memory one), other bounds on the waits, and where the
   * session talks to the store outside the bulks (tests run it in place; null: a thread of its own).
   */
  ReadModelExporter(Function<StoreConnection, SearchStore> connector, Duration fullBufferWait, Duration closeWait,
      Executor sessionExecutor) {
    this.connector = connector;
    this.fullBufferWait = fullBufferWait;
    this.closeWait = closeWait;
    this.sessionExecutor = sessionExecutor;
  }

  @Override
  public void configure(Context context) {
    log = context.getLogger();
    // throws on a bad argument, which fails the broker's start with that message
    config = ExporterConfiguration.fromArguments(context.getConfiguration().getArguments());
    settings = config.writer();
    policy = settings.flushPolicy();
    retention = RetentionArguments.fromArguments(context.getConfiguration().getArguments());
    partitionId = context.getPartitionId();
    clock = context.clock() == null ? InstantSource.system() : context.clock();
    meterRegistry = context.getMeterRegistry() == null ? new SimpleMeterRegistry() : context.getMeterRegistry();
    context.setFilter(
        new RecordFilter() {
          @Override
          public boolean acceptType(RecordType recordType) {
            return recordType == RecordType.EVENT;
          }

          @Override
          public boolean acceptValue(ValueType valueType) {
            return ReadModelWriter.VALUE_TYPES.contains(valueType);
          }
        });
  }

  /** What the session reads of the partition's log in the store once connected. */
  private record IdentitySide(LogIdentityStore identities, LogIdentityStore.Stored stored) {}

  @Override
  public void open(Controller controller) {
    open(controller, ReadModelWriter.handlers(settings));
  }

  /** With other handlers (tests make one throw). */
  void open(Controller controller, List<ExportHandler> handlers) {
    this.controller = controller;
    openedAtMillis = clock.millis();
    metrics = new ExporterMetrics(meterRegistry, partitionId, clock);
    PartitionWriting parts = PartitionWriting.of(settings, partitionId, clock, log,
        new PartitionWriting.Counters(metrics::deadLetter, metrics::retry));
    writer = parts.writer(handlers);
    buffer = writer.buffer();
    retry = parts.retry("search-store");
    Executor background = sessionExecutor;
    if (background == null) {
      sessionThread = Executors.newSingleThreadExecutor(
          Thread.ofPlatform().name("flowpipe-store-session-partition-" + partitionId).daemon().factory());
      background = sessionThread;
    }
    router = new PeriodRouter(settings.indexPrefix(), partitionId, retention, settings.indexLayout());
    session = parts.session(connection -> router.wrap(connector.apply(connection)), store -> {
      LogIdentityStore identities = new LogIdentityStore(store, settings.indexPrefix(), partitionId);
      return new IdentitySide(identities, identities.read());
    }, background);
    health = ExporterHealth.open(partitionId, meterRegistry, clock, log);
    identity = new LogIdentityGate(partitionId, config.onForeignStore(),
        controller.readMetadata().flatMap(metadata -> LogIdentity.logIdOf(metadata)),
        controller.getLastExportedRecordPosition(), health, clock, log);
    pipeline = parts.pipeline(retry, metrics::flushed, this::acknowledge);
    quietMarks = new QuietPositionMarks(partitionId);
    acknowledgedPosition = controller.getLastExportedRecordPosition();
    metrics.lag(
        () -> buffer.recordsSinceAck() + pipeline.unacknowledgedRecords(),
        () -> buffer.size(),
        this::lagAgeMillis,
        () -> acknowledgedPosition);
    scheduleTick(policy.delay());
    connect();
  }

  /**
   * Age of the oldest record not yet durable, counted at most from this exporter's opening: records replayed after a
   * restart carry their original engine time, which says nothing about how far behind the store is now. It grows
   * while the store cannot be reached at all, so flow control sees a store that never comes.
   */
  private long lagAgeMillis() {
    long oldest = pipeline.oldestUnacknowledgedTimestamp();
    if (oldest < 0) {
      oldest = bufferedOldestTimestamp;
    }
    return oldest < 0 ? 0 : Math.max(0, clock.millis() - Math.max(oldest, openedAtMillis));
  }

  /**
   * Whether the session is connected; starts an attempt in the background if not, and backs off after a failed one:
   * the store may still be starting or be down.
   */
  private boolean connect() {
    if (!session.connected() && !session.attempting() && !retry.mayAttempt()) {
      return false;
    }
    return switch (session.poll()) {
      case CONNECTED -> true;
      case CONNECTING -> false;
      case FAILED -> {
        metrics.failure();
        RuntimeException failure = session.lastFailure();
        if (failure instanceof StoreRefusedException refused) {
          health.down(refusal(refused));
        }
        retry.failedToConnect("search store at " + settings.store().url() + " not usable yet: " + failure.getMessage());
        yield false;
      }
    };
  }

  /** Decides on the log's identity once the session has read the store's side and the first record has arrived. */
  private void advanceIdentity() {
    if (!identity.ready() && connect()) {
      IdentitySide side = session.prepared();
      identity.advance(side.stored(), side.identities(), session.background());
    }
  }

  /**
   * Waits up to {@code timeout} for the session's connection attempt and the log check running in the background,
   * deciding in between (closing with records buffered, and tests).
   */
  private void awaitIdentity(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    if (identity.ready() || identity.refused()) {
      return;
    }
    session.awaitAttempt(timeout);
    retry.attemptNow();
    advanceIdentity();
    identity.awaitPrepared(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
  }

  /**
   * The health's reason for a refusal. A retry's bulk holds more records than the one before, so the bulk's size is
   * left out: the reason stays the same while the store's does, and the health logs it once (not at every retry).
   */
  static String refusal(StoreRefusedException refused) {
    Throwable cause = refused.getCause() == null ? refused : refused.getCause();
    String message = String.valueOf(cause.getMessage()).replaceFirst("^bulk of \\d+ ", "a bulk ");
    return "the search store refuses the exporter's requests: HTTP " + refused.status() + " " + message;
  }

  @Override
  public void export(Record<?> record) {
    if (identity.refused()) {
      return; // the store's read model is another log's: nothing acknowledged, the log keeps the record
    }
    identity.recordArrived(record.getPosition(), record.getTimestamp());
    advanceIdentity();
    settleEndedBulks();
    if (policy.full(buffer)) {
      makeRoom();
    }
    metrics.recordExported(record.getValueType());
    // computed now: the broker reuses this record object for the next record of its value type
    List<DocumentChange> changes = router.route(record, writer.changes(record));
    if (changes.isEmpty() && buffer.isEmpty() && pipeline.isEmpty() && identity.ready()
        && buffer.recordsSinceAck() == 0) {
      acknowledge(record.getPosition(), 1);
      quietMarks.acknowledgedWithoutBulk(record.getPosition()); // marked on the timer: readers may wait for it
      return;
    }
    if (bufferedOldestTimestamp < 0) {
      bufferedOldestTimestamp = record.getTimestamp();
      metrics.firstRecordArrived(record.getTimestamp());
    }
    writer.accept(changes, record.getPosition(), record.getTimestamp(), pipeline.batches());
    Optional<Reason> due = retry.mayAttempt() ? writer.due() : Optional.empty();
    if (due.isPresent() && !flush(due.get())) {
      lookAgainSoon();
    }
  }

  /**
   * The store is behind: waits (bounded) for the bulks in flight and tries a flush; if the buffer is still full,
   * refuses the record, so memory stays bounded and the broker, offering it again later, sees the lag.
   */
  private void makeRoom() {
    pipeline.awaitEnded(fullBufferWait);
    settleEndedBulks();
    if (retry.mayAttempt() && flush(Reason.SIZE) && lastBulkFailed) {
      // after a failure, this attempt decides whether the record can be taken
      pipeline.awaitEnded(fullBufferWait);
      settleEndedBulks();
    }
    if (policy.full(buffer)) {
      throw new StoreUnavailableException("export buffer full (" + buffer.size()
          + " documents) while the search store is behind or failing; the record is offered again later");
    }
  }

  private void scheduleTick(Duration in) {
    timerDueNanos = nanos() + in.toNanos();
    timer = controller.scheduleCancellableTask(in, this::onTick);
  }

  /** A flush is due but has to wait for the bulks in flight: the timer looks again soon, not only after the delay. */
  private void lookAgainSoon() {
    lookAgainIn(Duration.ofMillis(2));
  }

  /** Brings the timer forward to {@code in} from now, if it would run later (outside the timer's own run). */
  private void lookAgainIn(Duration in) {
    if (timer != null && timerDueNanos - nanos() > in.toNanos()) {
      timer.cancel();
      scheduleTick(in);
    }
  }

  private void onTick() {
    timer = null; // it has run: the next one is scheduled below
    if (identity.refused()) {
      return; // nothing more to do until the exporter is opened again
    }
    advanceIdentity();
    settleEndedBulks();
    long now = nanos();
    if (retry.mayAttempt()) {
      policy.due(buffer, now).ifPresent(this::flush);
    }
    if (buffer.isEmpty() && pipeline.isEmpty() && identity.ready()) {
      acknowledgeRecordsWithoutDocuments();
      quietMarks.markPending(session.writer());
    }
    now = nanos();
    long wait = Math.max(policy.nanosUntilDelay(buffer, now), Duration.ofMillis(retry.millisUntilNextAttempt()).toNanos());
    if (!pipeline.isEmpty() && !buffer.isEmpty()) {
      // a flush may be due when a bulk in flight ends: look again soon
      wait = Math.min(wait, Duration.ofMillis(2).toNanos());
    }
    if (!identity.ready()) {
      // connecting and checking the log run in the background: look again at a pace that costs the actor nothing
      wait = Math.max(WAITING_LOOK.toNanos(), Duration.ofMillis(retry.millisUntilNextAttempt()).toNanos());
    }
    scheduleTick(Duration.ofNanos(Math.max(wait, Duration.ofMillis(1).toNanos())));
  }

  private long nanos() {
    return writer.nanos();
  }

  /**
   * Tells the broker that every record up to {@code position} is durable (called from bulk threads too), with the
   * log's id as the exporter's metadata, which the broker keeps in the partition's state and hands to its replicas.
   */
  private void acknowledge(long position, long records) {
    controller.updateLastExportedRecordPosition(position, identity.metadata());
    acknowledgedPosition = position;
    metrics.acknowledged(records);
  }

  /** Hands everything buffered to the pipeline; true when it did (or there was nothing to write). */
  private boolean flush(Reason reason) {
    if (buffer.isEmpty()) {
      return true;
    }
    if (!identity.ready() || !pipeline.mayHandOver(buffer) || !retry.tryAcquire()) {
      return false;
    }
    pipeline.handOver(buffer.takeBatch(), bufferedOldestTimestamp, session.writer(), reason);
    bufferedOldestTimestamp = -1;
    return true;
  }

  private void settleEndedBulks() {
    pipeline.settleEnded(buffer, this::afterBulk);
  }

  private void afterBulk(BulkPipeline.Ended ended) {
    if (ended.failure() instanceof StoreRefusedException refused) {
      health.down(refusal(refused));
    } else if (ended.result() != null && ended.result().refusal() != null) {
      health.down("the search store refuses the exporter's writes: " + ended.result().refusal());
    }
    if (!ended.complete()) {
      // what was in flight is back in the buffer: its age counts again
      long batchOldest = ended.batch().oldestRecordTimestamp();
      if (batchOldest >= 0 && !buffer.isEmpty()
          && (bufferedOldestTimestamp < 0 || batchOldest < bufferedOldestTimestamp)) {
        bufferedOldestTimestamp = batchOldest;
      }
      lastBulkFailed = true;
      metrics.failure();
      String why = ended.failure() != null
          ? "flush of " + ended.documents() + " documents failed: " + ended.failure().getMessage()
          : ended.result().retryable() + " of " + ended.documents() + " documents failed with retryable errors";
      if (health.report().status() == ExporterHealth.Status.DOWN) {
        retry.failedQuietly(why); // the reason is in the health and was logged once
      } else {
        retry.failed(why);
      }
      // the retry must not wait for the bulk delay of a quiet path
      lookAgainIn(Duration.ofMillis(Math.max(1, retry.millisUntilNextAttempt())));
      return;
    }
    retry.succeeded();
    health.writing();
    lastBulkFailed = false;
    acknowledgeRecordsWithoutDocuments();
  }

  /**
   * Records with nothing to write that arrived while bulks were in flight (or an earlier bulk failed and a later one
   * wrote later versions of all it left, or the log's identity was not yet known) are done once nothing is buffered
   * or in flight.
   */
  private void acknowledgeRecordsWithoutDocuments() {
    if (pipeline.isEmpty() && buffer.isEmpty() && buffer.recordsSinceAck() > 0) {
      acknowledge(buffer.lastPosition(), buffer.recordsSinceAck());
      quietMarks.acknowledgedWithoutBulk(buffer.lastPosition());
      buffer.acknowledged();
      bufferedOldestTimestamp = -1;
    }
  }

  /** Waits for the bulks in flight, if any, to end, and takes their batches back (tests use it to wait for a flush). */
  void awaitBulkInFlight() {
    if (!identity.ready()) {
      // the export path could not flush before the log check: what it would have flushed goes now
      awaitIdentity(Duration.ofMinutes(1));
      if (identity.ready() && retry.mayAttempt()) {
        policy.due(buffer, nanos()).ifPresent(this::flush);
      }
    }
    pipeline.awaitEnded(Duration.ofMinutes(1));
    settleEndedBulks();
    try {
      quietMarks.awaitMarked(Duration.ofMinutes(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.cancel();
    }
    if (pipeline != null) {
      long deadline = System.nanoTime() + closeWait.toNanos();
      if (!buffer.isEmpty()) {
        awaitIdentity(closeWait);
      }
      pipeline.awaitEnded(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      settleEndedBulks();
      if (!buffer.isEmpty() && pipeline.isEmpty()) {
        retry.attemptNow();
        flush(Reason.CLOSE);
        pipeline.awaitEnded(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        settleEndedBulks();
      }
      if (!buffer.isEmpty() || !pipeline.isEmpty()) {
        log.warn("closing with {} documents not durable; they are exported again from the last acknowledged position",
            buffer.size() + pipeline.batches().stream().mapToInt(DocumentBuffer::size).sum());
      }
      pipeline.close();
    }
    if (quietMarks != null) {
      quietMarks.close();
    }
    if (session != null) {
      session.close();
    }
    if (sessionThread != null) {
      sessionThread.shutdownNow();
    }
    if (health != null) {
      health.close();
    }
    if (metrics != null) {
      metrics.close();
    }
  }
}
