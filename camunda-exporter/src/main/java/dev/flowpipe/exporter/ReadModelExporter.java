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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
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
 * goes on filling the next batch; up to {@code bulks-in-flight} bulks at a time, so a slow bulk need not hold up the
 * next one. A document changed while a version of it is in flight starts from that version, and a bulk acknowledges
 * its position only once every earlier bulk has, so the acknowledged position only moves forward and never past a
 * write that is not durable. When the buffer is full, the actor waits for the bulks in flight (the broker sees the lag).
 * After a failure it backs off exponentially with jitter, and a circuit breaker stops it from hammering a store that
 * is down; while the buffer is full and the store failing it refuses records, so the broker retries them.
 *
 * <p>The broker calls every method on the exporter's actor thread. A bulk thread touches only its batch, the store,
 * the metrics and the (thread-safe) position acknowledgement, the latter in order under {@code ackOrder}; the actor
 * takes the batches back, oldest first, when their bulks have ended.
 */
public final class ReadModelExporter implements Exporter {

  // bulks that ended behind a slow one wait to be settled; past this many, no more are handed over
  static final int MAX_UNSETTLED = 32;

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
  private ExecutorService bulkThreads;
  // oldest first; only the actor changes it (see inFlightChanged), and the lag gauges read the copy in inFlightView
  private final Deque<InFlight> inFlight = new ArrayDeque<>();
  private volatile List<InFlight> inFlightView = List.of();
  // their batches, for the buffer on every export
  private List<DocumentBuffer> inFlightBatches = List.of();
  private boolean lastBulkFailed;
  private boolean drainAfterFailure;
  // orders the acknowledgements of bulks that end out of order
  private final Object ackOrder = new Object();
  // read by the lag gauges from other threads: engine time of the oldest record buffered
  private volatile long bufferedOldestTimestamp = -1;
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
        () -> {
          long records = buffer.recordsSinceAck();
          for (InFlight bulk : inFlightView) {
            records += bulk.acknowledged ? 0 : bulk.records;
          }
          return records;
        },
        () -> buffer.size(),
        () -> {
          long oldest = bufferedOldestTimestamp;
          for (InFlight bulk : inFlightView) {
            if (!bulk.acknowledged) {
              oldest = bulk.oldestTimestamp;
              break;
            }
          }
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
    // one thread per bulk being written; acknowledgements need none of their own (see write)
    bulkThreads = Executors.newFixedThreadPool(config.bulksInFlight(),
        Thread.ofPlatform().name("flowpipe-bulk-partition-" + partitionId + "-", 0).daemon().factory());
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
    settleEndedBulks();
    if (policy.full(buffer)) {
      // the store is behind: hold the actor until the bulks in flight end, so the broker sees the lag
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
    if (changes.isEmpty() && buffer.isEmpty() && inFlight.isEmpty()) {
      acknowledge(record.getPosition(), 1);
      return;
    }
    if (bufferedOldestTimestamp < 0) {
      bufferedOldestTimestamp = record.getTimestamp();
      metrics.firstRecordArrived(record.getTimestamp());
    }
    long now = System.nanoTime();
    buffer.add(changes, record.getPosition(), record.getTimestamp(), now, inFlightBatches);
    if (flushAllowed()) {
      policy.due(buffer, now).ifPresent(this::flush);
    }
  }

  private void scheduleTick(Duration in) {
    timer = controller.scheduleCancellableTask(in, this::onTick);
  }

  private void onTick() {
    settleEndedBulks();
    long now = System.nanoTime();
    if (flushAllowed()) {
      policy.due(buffer, now).ifPresent(this::flush);
    }
    now = System.nanoTime();
    long wait = Math.max(policy.nanosUntilDelay(buffer, now), nextAttemptNanos - now);
    if (!inFlight.isEmpty() && !buffer.isEmpty()) {
      // a flush may be due when a bulk in flight ends: look again soon
      wait = Math.min(wait, TimeUnit.MILLISECONDS.toNanos(2));
    }
    scheduleTick(Duration.ofNanos(Math.max(wait, TimeUnit.MILLISECONDS.toNanos(1))));
  }

  private boolean flushAllowed() {
    return System.nanoTime() >= nextAttemptNanos;
  }

  /** After each change of {@code inFlight}: the copies other threads and the export path read. */
  private void inFlightChanged() {
    inFlightView = List.copyOf(inFlight);
    inFlightBatches = inFlightView.stream().map(bulk -> bulk.batch).toList();
  }

  /** Tells the broker that every record up to {@code position} is durable. */
  private void acknowledge(long position, long records) {
    controller.updateLastExportedRecordPosition(position);
    acknowledgedPosition = position;
    metrics.acknowledged(records);
  }

  /** One batch handed to a bulk thread. */
  private static final class InFlight {
    final DocumentBuffer batch;
    final long oldestTimestamp;
    final long records;
    Future<Outcome> outcome;
    // the rest under ackOrder: the bulk in flight before this one when it was handed over (null: none was, so this
    // batch holds every record not yet durable), the one handed over next, and how far this one got
    InFlight predecessor;
    InFlight successor;
    boolean ended;
    boolean complete;
    // also read by the lag gauges and, once ended, by the actor
    volatile boolean acknowledged;

    InFlight(DocumentBuffer batch, long oldestTimestamp) {
      this.batch = batch;
      this.oldestTimestamp = oldestTimestamp;
      this.records = batch.recordsSinceAck();
    }
  }

  /** What the bulk thread did with one batch. */
  private record Outcome(BulkWriter.Result result, RuntimeException failure, int documents) {}

  /**
   * Hands everything buffered to a bulk thread; true when it did (or there was nothing to write). A flush due while
   * {@code bulks-in-flight} bulks are being written, or while a buffered document waits for one of them to read its
   * base, has to wait; after a failed bulk, so does every flush until the bulks in flight have ended.
   */
  private boolean flush(Reason reason) {
    if (buffer.isEmpty()) {
      return true;
    }
    if (inFlight.isEmpty()) {
      drainAfterFailure = false;
    }
    if (drainAfterFailure || writing() >= config.bulksInFlight() || inFlight.size() >= MAX_UNSETTLED
        || buffer.waitsForInFlight()) {
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
    InFlight bulk = new InFlight(buffer.takeBatch(), bufferedOldestTimestamp);
    bufferedOldestTimestamp = -1;
    synchronized (ackOrder) {
      bulk.predecessor = inFlight.peekLast();
      if (bulk.predecessor != null) {
        bulk.predecessor.successor = bulk;
      }
    }
    bulk.outcome = bulkThreads.submit(() -> write(bulk, reason, start));
    inFlight.addLast(bulk);
    inFlightChanged();
    return true;
  }

  /** Bulks handed over whose write has not ended (ended ones wait, oldest first, to be settled). */
  private int writing() {
    int writing = 0;
    for (InFlight bulk : inFlight) {
      writing += bulk.outcome.isDone() ? 0 : 1;
    }
    return writing;
  }

  /**
   * On a bulk thread: writes the batch; when all of it is durable and the bulk before it acknowledged its position,
   * acknowledges the batch's last position, and then those of the later bulks that had ended waiting for this one.
   */
  private Outcome write(InFlight bulk, Reason reason, long start) {
    DocumentBuffer batch = bulk.batch;
    int documents = batch.size();
    long oldest = batch.oldestRecordTimestamp();
    BulkWriter.Result result = null;
    RuntimeException failure = null;
    try {
      result = writer.flush(batch);
      circuitBreaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      if (result.complete()) {
        // recorded before the acknowledgement, so whoever sees the position sees this bulk's timings too
        metrics.flushed(reason, documents, Duration.ofNanos(System.nanoTime() - start), oldest);
      }
    } catch (RuntimeException e) {
      circuitBreaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, e);
      failure = e;
    }
    synchronized (ackOrder) {
      bulk.ended = true;
      bulk.complete = result != null && result.complete();
      for (InFlight next = bulk;
          next != null && next.ended && next.complete && !next.acknowledged
              && (next.predecessor == null || next.predecessor.acknowledged);
          next = next.successor) {
        acknowledge(next.batch.lastPosition(), next.records);
        next.acknowledged = true;
      }
    }
    return new Outcome(result, failure, documents);
  }

  /** On the actor: takes back, oldest first, the batches of bulks that have ended, with what they could not write. */
  private void settleEndedBulks() {
    while (!inFlight.isEmpty() && inFlight.getFirst().outcome.isDone()) {
      InFlight ended = inFlight.removeFirst();
      inFlightChanged();
      settle(ended);
    }
  }

  private void settle(InFlight ended) {
    Outcome outcome;
    try {
      outcome = ended.outcome.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      outcome = new Outcome(null, new IllegalStateException("interrupted"), ended.batch.size());
    } catch (ExecutionException e) {
      outcome = new Outcome(null, new IllegalStateException(e.getCause()), ended.batch.size());
    }
    long batchOldest = ended.batch.oldestRecordTimestamp();
    // final here: a bulk is acknowledged before its own write returns or before its predecessor's does
    buffer.settle(ended.batch, ended.acknowledged, inFlightBatches);
    if (outcome.failure() != null || !outcome.result().complete()) {
      // the bulks in flight after this one cannot acknowledge: the next one goes when they have ended and holds all
      // that is not durable yet
      drainAfterFailure = true;
      // what was in flight is back in the buffer: its age counts again
      if (batchOldest >= 0 && !buffer.isEmpty()
          && (bufferedOldestTimestamp < 0 || batchOldest < bufferedOldestTimestamp)) {
        bufferedOldestTimestamp = batchOldest;
      }
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
    if (inFlight.isEmpty() && buffer.isEmpty() && buffer.recordsSinceAck() > 0) {
      // records with nothing to write arrived while bulks were in flight (or an earlier bulk failed and this one wrote
      // later versions of all it left): they are done now too
      acknowledge(buffer.lastPosition(), buffer.recordsSinceAck());
      buffer.acknowledged();
      bufferedOldestTimestamp = -1;
    }
  }

  /** Waits for the bulks in flight, if any, to end, and takes their batches back (tests use it to wait for a flush). */
  void awaitBulkInFlight() {
    for (InFlight bulk : List.copyOf(inFlight)) {
      try {
        bulk.outcome.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException e) {
        // reported when settled
      }
    }
    settleEndedBulks();
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
    if (bulkThreads != null) {
      bulkThreads.shutdown();
    }
    if (store != null) {
      store.close();
    }
  }
}
