package dev.flowpipe.exporter;

import dev.flowpipe.exporter.batch.BulkFlushPolicy;
import dev.flowpipe.exporter.batch.BulkFlushPolicy.Reason;
import dev.flowpipe.exporter.batch.DocumentBuffer;
import dev.flowpipe.exporter.batch.RecentDocuments;
import dev.flowpipe.exporter.config.ExporterConfiguration;
import dev.flowpipe.exporter.error.DeadLetters;
import dev.flowpipe.exporter.handler.DocumentChange;
import dev.flowpipe.exporter.handler.ExportHandler;
import dev.flowpipe.exporter.handler.FlowNodeInstanceHandler;
import dev.flowpipe.exporter.handler.IncidentHandler;
import dev.flowpipe.exporter.handler.JobHandler;
import dev.flowpipe.exporter.handler.ProcessDefinitionHandler;
import dev.flowpipe.exporter.handler.ProcessInstanceHandler;
import dev.flowpipe.exporter.handler.VariableHandler;
import dev.flowpipe.exporter.metrics.ExporterMetrics;
import dev.flowpipe.exporter.store.BulkWriter;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreUnavailableException;
import io.camunda.zeebe.exporter.api.Exporter;
import io.camunda.zeebe.exporter.api.context.Context;
import io.camunda.zeebe.exporter.api.context.Context.RecordFilter;
import io.camunda.zeebe.exporter.api.context.Controller;
import io.camunda.zeebe.exporter.api.context.ScheduledTask;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.RecordType;
import io.camunda.zeebe.protocol.record.ValueType;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.IntervalFunction;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * The in-broker exporter: engine records through the handlers into read-model documents, folded per document in a
 * buffer and written in bulks. A record's position is acknowledged only after everything buffered up to it is durable,
 * so after a crash the broker replays from there, and position-versioned writes make that replay harmless.
 *
 * <p>Flushes happen when the {@link BulkFlushPolicy} says so, checked on the export path (so a busy path never starves
 * the delay) and by a timer (so a quiet one still flushes). A bulk is written on a thread of its own while the actor
 * goes on filling the next batch; one bulk at a time, so batches stay in log order and the acknowledged position only
 * moves forward. When the buffer is full while a bulk is in flight, the actor waits for it (the broker sees the lag).
 * After a failure it backs off exponentially with jitter, and a circuit breaker stops it from hammering a store that
 * is down; while the buffer is full and the store failing it refuses records, so the broker retries them.
 *
 * <p>The broker calls every method on the exporter's actor thread. The bulk thread touches only its batch, the store,
 * the metrics and the (thread-safe) position acknowledgement; the actor takes the batch back when the bulk has ended.
 */
public final class ReadModelExporter implements Exporter {

  private static final Set<ValueType> EXPORTED =
      Set.of(ValueType.PROCESS, ValueType.PROCESS_INSTANCE, ValueType.VARIABLE, ValueType.INCIDENT, ValueType.JOB,
          ValueType.JOB_BATCH);

  private Logger log;
  private ExporterConfiguration config;
  private BulkFlushPolicy policy;
  private List<ExportHandler> handlers;
  private MeterRegistry meterRegistry;
  private int partitionId;

  private Controller controller;
  private SearchStore store;
  private BulkWriter writer;
  private DocumentBuffer buffer;
  private ExporterMetrics metrics;
  private CircuitBreaker circuitBreaker;
  private IntervalFunction backoff;
  private int failedAttempts;
  private long nextAttemptNanos;
  private ScheduledTask timer;
  private ExecutorService bulkThread;
  private InFlight inFlight;
  private boolean lastBulkFailed;
  // read by the lag gauges from other threads: engine time of the oldest record buffered / in the bulk in flight
  private volatile long bufferedOldestTimestamp = -1;
  private volatile long inFlightOldestTimestamp = -1;
  private volatile long inFlightRecords;
  private volatile long acknowledgedPosition = -1;
  // when the store was first reached; lag before that is the node starting (its store boots beside the broker)
  private volatile long connectedSinceMillis = -1;

  @Override
  public void configure(Context context) {
    log = context.getLogger();
    // throws on a bad argument, which fails the broker's start with that message
    config = ExporterConfiguration.fromArguments(context.getConfiguration().getArguments());
    policy = config.flushPolicy();
    handlers = handlers(config);
    partitionId = context.getPartitionId();
    meterRegistry = context.getMeterRegistry() == null ? new SimpleMeterRegistry() : context.getMeterRegistry();
    context.setFilter(
        new RecordFilter() {
          @Override
          public boolean acceptType(RecordType recordType) {
            return recordType == RecordType.EVENT;
          }

          @Override
          public boolean acceptValue(ValueType valueType) {
            return EXPORTED.contains(valueType);
          }
        });
  }

  /** The one record-to-document transformation; the importer uses the same list. */
  public static List<ExportHandler> handlers(ExporterConfiguration config) {
    String prefix = config.indexPrefix();
    return List.of(
        new ProcessDefinitionHandler(prefix),
        new ProcessInstanceHandler(prefix),
        new FlowNodeInstanceHandler(prefix),
        new VariableHandler(prefix, config.variableValueLimit()),
        new IncidentHandler(prefix),
        new JobHandler(prefix));
  }

  @Override
  public void open(Controller controller) {
    this.controller = controller;
    buffer = new DocumentBuffer(new RecentDocuments(config.recentDocuments()));
    metrics = new ExporterMetrics(meterRegistry, partitionId);
    metrics.lag(
        () -> buffer.recordsSinceAck() + inFlightRecords,
        () -> buffer.size(),
        () -> {
          long inFlightOldest = inFlightOldestTimestamp;
          long bufferedOldest = bufferedOldestTimestamp;
          long oldest = inFlightOldest >= 0 ? inFlightOldest : bufferedOldest;
          long connected = connectedSinceMillis;
          return oldest < 0 || connected < 0
              ? 0
              : Math.max(0, System.currentTimeMillis() - Math.max(oldest, connected));
        },
        () -> acknowledgedPosition);
    backoff =
        IntervalFunction.ofExponentialRandomBackoff(
            config.retryBackoff().toMillis(), 2.0, 0.25, config.maxRetryBackoff().toMillis());
    circuitBreaker =
        CircuitBreaker.of(
            "search-store-partition-" + partitionId,
            CircuitBreakerConfig.custom()
                .slidingWindowSize(10)
                .minimumNumberOfCalls(5)
                .failureRateThreshold(50)
                .waitDurationInOpenState(config.maxRetryBackoff())
                .permittedNumberOfCallsInHalfOpenState(1)
                .recordExceptions(StoreUnavailableException.class)
                .build());
    acknowledgedPosition = controller.getLastExportedRecordPosition();
    bulkThread = Executors.newSingleThreadExecutor(
        Thread.ofPlatform().name("flowpipe-bulk-partition-" + partitionId).daemon().factory());
    scheduleTick(config.bulkDelay());
    try {
      connect();
    } catch (RuntimeException e) {
      // the store may still be starting (the node starts both at once) or be down: records are buffered, and the
      // next flush attempt connects again
      backOff("search store at " + config.store().url() + " not reachable yet: " + e.getMessage(), 1_000);
    }
  }

  /** Connects and makes sure the schema exists; the first flush after a failed connect does this again. */
  private void connect() {
    if (store != null) {
      return;
    }
    SearchStore connected = SearchStoreConnector.connect(config.store());
    try {
      new SchemaManager(connected, config.indexPrefix(), config.refreshInterval()).ensureSchema();
    } catch (RuntimeException e) {
      connected.close();
      throw e;
    }
    store = connected;
    if (connectedSinceMillis < 0) {
      connectedSinceMillis = System.currentTimeMillis();
    }
    DeadLetters deadLetters =
        new DeadLetters(connected, config.indexPrefix(), partitionId, 32 * 1024, log, metrics::deadLetter);
    writer = new BulkWriter(connected, deadLetters, config.bulkRefresh());
    log.info("exporting to {} {} at {} ({})", store.product(), store.version(), config.store().url(), policy);
  }

  @Override
  public void export(Record<?> record) {
    settleEndedBulk();
    if (policy.full(buffer)) {
      // the store is behind: hold the actor until the bulk in flight ends, so the broker sees the lag
      awaitBulkInFlight();
      if (flushAllowed() && flush(Reason.SIZE) && lastBulkFailed) {
        // after a failure, this attempt decides whether the record can be taken
        awaitBulkInFlight();
      }
      if (policy.full(buffer)) {
        // refuse the record: the broker retries it later, and memory stays bounded
        throw new StoreUnavailableException(
            "export buffer full (" + buffer.size() + " documents) while the search store is failing");
      }
    }
    metrics.recordExported(record.getValueType());
    List<DocumentChange> changes = new ArrayList<>(2);
    for (ExportHandler handler : handlers) {
      if (handler.handles(record)) {
        changes.addAll(handler.changes(record));
      }
    }
    if (changes.isEmpty() && buffer.isEmpty() && inFlight == null) {
      controller.updateLastExportedRecordPosition(record.getPosition());
      acknowledgedPosition = record.getPosition();
      metrics.acknowledged(1);
      return;
    }
    if (bufferedOldestTimestamp < 0) {
      bufferedOldestTimestamp = record.getTimestamp();
      metrics.firstRecordArrived(record.getTimestamp());
    }
    long now = System.nanoTime();
    buffer.add(changes, record.getPosition(), record.getTimestamp(), now, inFlight == null ? null : inFlight.batch());
    if (flushAllowed()) {
      policy.due(buffer, now).ifPresent(this::flush);
    }
  }

  private void scheduleTick(Duration in) {
    timer = controller.scheduleCancellableTask(in, this::onTick);
  }

  private void onTick() {
    settleEndedBulk();
    long now = System.nanoTime();
    if (flushAllowed()) {
      policy.due(buffer, now).ifPresent(this::flush);
    }
    now = System.nanoTime();
    long wait = Math.max(policy.nanosUntilDelay(buffer, now), nextAttemptNanos - now);
    if (inFlight != null && !buffer.isEmpty()) {
      // a flush may be due when the bulk in flight ends: look again soon
      wait = Math.min(wait, TimeUnit.MILLISECONDS.toNanos(2));
    }
    scheduleTick(Duration.ofNanos(Math.max(wait, TimeUnit.MILLISECONDS.toNanos(1))));
  }

  private boolean flushAllowed() {
    return System.nanoTime() >= nextAttemptNanos;
  }

  /** What the bulk thread did with one batch. */
  private record InFlight(DocumentBuffer batch, Future<Outcome> outcome) {}

  private record Outcome(BulkWriter.Result result, RuntimeException failure, int documents) {}

  /**
   * Hands everything buffered to the bulk thread; true when it did (or there was nothing to write). At most one bulk is
   * in flight: a flush due while one is has to wait for it.
   */
  private boolean flush(Reason reason) {
    if (buffer.isEmpty()) {
      return true;
    }
    if (inFlight != null) {
      return false;
    }
    if (store == null && !connectFirst()) {
      return false;
    }
    if (!circuitBreaker.tryAcquirePermission()) {
      backOff("circuit open after repeated store failures");
      return false;
    }
    long start = System.nanoTime();
    DocumentBuffer batch = buffer.takeBatch();
    inFlightOldestTimestamp = bufferedOldestTimestamp;
    inFlightRecords = batch.recordsSinceAck();
    bufferedOldestTimestamp = -1;
    inFlight = new InFlight(batch, bulkThread.submit(() -> write(batch, reason, start)));
    return true;
  }

  /** On the bulk thread: writes the batch and, when all of it is durable, acknowledges its last position. */
  private Outcome write(DocumentBuffer batch, Reason reason, long start) {
    int documents = batch.size();
    long oldest = batch.oldestRecordTimestamp();
    try {
      BulkWriter.Result result = writer.flush(batch);
      circuitBreaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      if (result.complete()) {
        // recorded before the acknowledgement, so whoever sees the position sees this bulk's timings too
        metrics.flushed(reason, documents, Duration.ofNanos(System.nanoTime() - start), oldest);
        // every earlier batch is durable too (one bulk at a time; a failed one comes back into the next)
        controller.updateLastExportedRecordPosition(batch.lastPosition());
        acknowledgedPosition = batch.lastPosition();
        metrics.acknowledged(batch.recordsSinceAck());
        inFlightOldestTimestamp = -1;
        inFlightRecords = 0;
      }
      return new Outcome(result, null, documents);
    } catch (RuntimeException e) {
      circuitBreaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, e);
      return new Outcome(null, e, documents);
    }
  }

  /** On the actor: takes back the batch of a bulk that has ended, with what it could not write. */
  private void settleEndedBulk() {
    if (inFlight == null || !inFlight.outcome().isDone()) {
      return;
    }
    InFlight ended = inFlight;
    inFlight = null;
    Outcome outcome;
    try {
      outcome = ended.outcome().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      outcome = new Outcome(null, new IllegalStateException("interrupted"), ended.batch().size());
    } catch (ExecutionException e) {
      outcome = new Outcome(null, new IllegalStateException(e.getCause()), ended.batch().size());
    }
    long batchOldest = ended.batch().oldestRecordTimestamp();
    buffer.settle(ended.batch());
    if (outcome.failure() != null || !outcome.result().complete()) {
      // what was in flight is back in the buffer: its age counts again
      if (batchOldest >= 0 && (bufferedOldestTimestamp < 0 || batchOldest < bufferedOldestTimestamp)) {
        bufferedOldestTimestamp = batchOldest;
      }
      inFlightOldestTimestamp = -1;
      inFlightRecords = 0;
      lastBulkFailed = true;
      metrics.failure();
      backOff(outcome.failure() != null
          ? "flush of " + outcome.documents() + " documents failed: " + outcome.failure().getMessage()
          : outcome.result().retryable() + " of " + outcome.documents()
              + " documents failed with retryable errors");
      return;
    }
    failedAttempts = 0;
    nextAttemptNanos = 0;
    lastBulkFailed = false;
    if (buffer.isEmpty() && buffer.recordsSinceAck() > 0) {
      // records with nothing to write arrived while the bulk was in flight: they are done now too
      controller.updateLastExportedRecordPosition(buffer.lastPosition());
      acknowledgedPosition = buffer.lastPosition();
      metrics.acknowledged(buffer.recordsSinceAck());
      buffer.acknowledged();
      bufferedOldestTimestamp = -1;
    }
  }

  /** Waits for the bulk in flight, if any, to end, and takes its batch back (tests use it to wait for a flush). */
  void awaitBulkInFlight() {
    if (inFlight == null) {
      return;
    }
    try {
      inFlight.outcome().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException e) {
      // reported by settleEndedBulk
    }
    settleEndedBulk();
  }

  /**
   * The first connection, while the store may still be booting: failures here do not count towards the circuit
   * breaker and retries come at least every second, so exporting starts soon after the store is up.
   */
  private boolean connectFirst() {
    try {
      connect();
      return true;
    } catch (RuntimeException e) {
      metrics.failure();
      backOff("search store at " + config.store().url() + " not reachable yet: " + e.getMessage(), 1_000);
      return false;
    }
  }

  private void backOff(String why) {
    backOff(why, Long.MAX_VALUE);
  }

  private void backOff(String why, long maxWaitMillis) {
    failedAttempts++;
    long waitMillis = Math.min(maxWaitMillis, backoff.apply(failedAttempts));
    if (failedAttempts > 1) {
      metrics.retry();
    }
    nextAttemptNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
    log.warn("{}; next attempt in {} ms (attempt {})", why, waitMillis, failedAttempts);
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.cancel();
    }
    if (buffer != null) {
      awaitBulkInFlight();
      if (!buffer.isEmpty()) {
        nextAttemptNanos = 0;
        flush(Reason.CLOSE);
        awaitBulkInFlight();
      }
      if (!buffer.isEmpty()) {
        log.warn("closing with {} documents not durable; they are exported again from the last acknowledged position",
            buffer.size());
      }
    }
    if (bulkThread != null) {
      bulkThread.shutdown();
    }
    if (store != null) {
      store.close();
    }
  }
}
