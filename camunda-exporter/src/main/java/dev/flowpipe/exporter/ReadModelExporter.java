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
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * The in-broker exporter: engine records through the handlers into read-model documents, folded per document in a
 * buffer and written in bulks. A record's position is acknowledged only after everything buffered up to it is durable,
 * so after a crash the broker replays from there, and position-versioned writes make that replay harmless.
 *
 * <p>Flushes happen when the {@link BulkFlushPolicy} says so, checked on the export path (so a busy path never starves
 * the delay) and by a timer (so a quiet one still flushes). After a failure it backs off exponentially with jitter,
 * and a circuit breaker stops it from hammering a store that is down; while the buffer is full it refuses records, so
 * the broker retries them and sees the lag.
 *
 * <p>All methods run on the exporter's actor thread: no locking needed.
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
  // read by the lag gauges from other threads: engine time of the oldest record not yet acknowledged (-1: none)
  private volatile long oldestUnackedTimestamp = -1;
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
        () -> buffer.recordsSinceAck(),
        () -> buffer.size(),
        () -> {
          long oldest = oldestUnackedTimestamp;
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
    writer = new BulkWriter(connected, deadLetters);
    log.info("exporting to {} {} at {} ({})", store.product(), store.version(), config.store().url(), policy);
  }

  @Override
  public void export(Record<?> record) {
    if (policy.full(buffer) && !(flushAllowed() && flush(Reason.SIZE))) {
      // refuse the record: the broker retries it later and sees the lag, and memory stays bounded
      throw new StoreUnavailableException(
          "export buffer full (" + buffer.size() + " documents) while the search store is failing");
    }
    metrics.recordExported(record.getValueType());
    List<DocumentChange> changes = new ArrayList<>(2);
    for (ExportHandler handler : handlers) {
      if (handler.handles(record)) {
        changes.addAll(handler.changes(record));
      }
    }
    if (changes.isEmpty() && buffer.isEmpty()) {
      controller.updateLastExportedRecordPosition(record.getPosition());
      acknowledgedPosition = record.getPosition();
      metrics.acknowledged(1);
      return;
    }
    if (oldestUnackedTimestamp < 0) {
      oldestUnackedTimestamp = record.getTimestamp();
    }
    long now = System.nanoTime();
    buffer.add(changes, record.getPosition(), record.getTimestamp(), now);
    if (flushAllowed()) {
      policy.due(buffer, now).ifPresent(this::flush);
    }
  }

  private void scheduleTick(Duration in) {
    timer = controller.scheduleCancellableTask(in, this::onTick);
  }

  private void onTick() {
    long now = System.nanoTime();
    if (flushAllowed()) {
      policy.due(buffer, now).ifPresent(this::flush);
    }
    now = System.nanoTime();
    long wait = Math.max(policy.nanosUntilDelay(buffer, now), nextAttemptNanos - now);
    scheduleTick(Duration.ofNanos(Math.max(wait, TimeUnit.MILLISECONDS.toNanos(1))));
  }

  private boolean flushAllowed() {
    return System.nanoTime() >= nextAttemptNanos;
  }

  /** Writes the buffer; true when everything buffered is durable and acknowledged. */
  private boolean flush(Reason reason) {
    if (buffer.isEmpty()) {
      return true;
    }
    if (store == null && !connectFirst()) {
      return false;
    }
    if (!circuitBreaker.tryAcquirePermission()) {
      backOff("circuit open after repeated store failures");
      return false;
    }
    long start = System.nanoTime();
    int documents = buffer.size();
    long oldest = buffer.oldestRecordTimestamp();
    try {
      connect();
      BulkWriter.Result result = writer.flush(buffer);
      circuitBreaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      if (!result.complete()) {
        metrics.failure();
        backOff(result.retryable() + " of " + documents + " documents failed with retryable errors");
        return false;
      }
      controller.updateLastExportedRecordPosition(buffer.lastPosition());
      acknowledgedPosition = buffer.lastPosition();
      metrics.acknowledged(buffer.recordsSinceAck());
      buffer.acknowledged();
      oldestUnackedTimestamp = -1;
      metrics.flushed(reason, documents, Duration.ofNanos(System.nanoTime() - start), oldest);
      failedAttempts = 0;
      nextAttemptNanos = 0;
      return true;
    } catch (RuntimeException e) {
      circuitBreaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, e);
      metrics.failure();
      backOff("flush of " + documents + " documents failed: " + e.getMessage());
      return false;
    }
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
    if (buffer != null && !buffer.isEmpty()) {
      nextAttemptNanos = 0;
      if (!flush(Reason.CLOSE)) {
        log.warn("closing with {} documents not durable; they are exported again from the last acknowledged position",
            buffer.size());
      }
    }
    if (store != null) {
      store.close();
    }
  }
}
