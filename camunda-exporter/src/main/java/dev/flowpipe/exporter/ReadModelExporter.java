package dev.flowpipe.exporter;

import dev.flowpipe.exporter.batch.ExportBatch;
import dev.flowpipe.exporter.config.ExporterConfiguration;
import dev.flowpipe.exporter.handler.ExportHandler;
import dev.flowpipe.exporter.handler.ProcessDefinitionHandler;
import dev.flowpipe.exporter.handler.ProcessInstanceHandler;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The in-broker exporter: engine records through the handlers into read-model documents, buffered and written in
 * bulks. A record's position is acknowledged only after its documents are durable, so after a crash the broker replays
 * from there, and the position guard on every write makes that replay harmless.
 *
 * <p>All methods run on the exporter's actor thread: no locking needed.
 */
public final class ReadModelExporter implements Exporter {

  private static final Set<ValueType> EXPORTED = Set.of(ValueType.PROCESS, ValueType.PROCESS_INSTANCE);

  private Logger log;
  private ExporterConfiguration config;
  private Controller controller;
  private SearchStore store;
  private List<ExportHandler> handlers;
  private final ExportBatch batch = new ExportBatch();
  private ScheduledTask flushTimer;
  private Duration currentBackoff;
  private long nextAttemptNanos;

  @Override
  public void configure(Context context) {
    log = context.getLogger();
    // throws on a bad argument, which fails the broker's start with that message
    config = ExporterConfiguration.fromArguments(context.getConfiguration().getArguments());
    handlers =
        List.of(new ProcessDefinitionHandler(config.indexPrefix()), new ProcessInstanceHandler(config.indexPrefix()));
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

  @Override
  public void open(Controller controller) {
    this.controller = controller;
    this.currentBackoff = config.retryBackoff();
    scheduleTick(config.bulkDelay());
    try {
      connect();
    } catch (RuntimeException e) {
      // the store may still be starting (the node starts both at once) or be down: records are buffered, and the
      // next flush attempt connects again
      backOff("search store at {} not reachable yet: {}", config.store().url(), e.getMessage());
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
    log.info("exporting to {} {} at {} (bulk delay {}, size {})", store.product(), store.version(),
        config.store().url(), config.bulkDelay(), config.bulkSize());
  }

  @Override
  public void export(Record<?> record) {
    if (batch.size() >= config.bulkSize() && !(retryAllowed() && flush("size"))) {
      // the buffer is full and the store does not take it: refuse the record so the broker retries it later and
      // sees the lag, instead of growing the buffer without bound
      throw new StoreUnavailableException("export buffer full (" + batch.size() + " documents) and the store is failing");
    }
    List<DocumentWrite> writes = new ArrayList<>();
    for (ExportHandler handler : handlers) {
      if (handler.handles(record)) {
        writes.addAll(handler.writes(record));
      }
    }
    if (writes.isEmpty() && batch.isEmpty()) {
      controller.updateLastExportedRecordPosition(record.getPosition());
      return;
    }
    batch.add(writes, record.getPosition(), System.nanoTime());
    if (!retryAllowed()) {
      return; // backing off after a failed flush; the timer tries again
    }
    if (batch.size() >= config.bulkSize()) {
      flush("size");
    } else if (batch.ageNanos(System.nanoTime()) >= config.bulkDelay().toNanos()) {
      flush("delay"); // a busy export path must not starve the timer
    }
  }

  private boolean retryAllowed() {
    return System.nanoTime() >= nextAttemptNanos;
  }

  private void scheduleTick(Duration in) {
    flushTimer = controller.scheduleCancellableTask(in, this::onTick);
  }

  private void onTick() {
    long now = System.nanoTime();
    long age = batch.ageNanos(now);
    if (!batch.isEmpty() && age >= config.bulkDelay().toNanos() && now >= nextAttemptNanos) {
      flush("delay");
    }
    long wait =
        batch.isEmpty() ? config.bulkDelay().toNanos() : Math.max(config.bulkDelay().toNanos() - batch.ageNanos(now), 0);
    if (now < nextAttemptNanos) {
      wait = Math.max(wait, nextAttemptNanos - now);
    }
    scheduleTick(Duration.ofNanos(Math.max(wait, Duration.ofMillis(1).toNanos())));
  }

  /** Writes the batch; returns true when every write is durable (and the position acknowledged). */
  private boolean flush(String reason) {
    if (batch.isEmpty()) {
      return true;
    }
    try {
      connect();
      BulkOutcome outcome = store.bulk(batch.writes());
      List<DocumentWrite> retry = new ArrayList<>();
      for (BulkOutcome.ItemFailure failure : outcome.failures()) {
        if (failure.retryable()) {
          retry.add(failure.write());
        } else {
          log.error("store rejected {} {} for good, skipping it: {} {}", failure.write().index(),
              failure.write().id(), failure.status(), failure.reason());
        }
      }
      if (!retry.isEmpty()) {
        batch.retainOnly(retry); // only the failed items go again
        backOff("{} of {} writes failed with retryable errors", retry.size(), outcome.applied() + retry.size());
        return false;
      }
      batch.clear();
      controller.updateLastExportedRecordPosition(batch.lastPosition());
      currentBackoff = config.retryBackoff();
      nextAttemptNanos = 0;
      log.trace("flushed ({}) up to position {}", reason, batch.lastPosition());
      return true;
    } catch (RuntimeException e) {
      backOff("flush of {} writes failed: {}", batch.size(), e.getMessage());
      return false;
    }
  }

  private void backOff(String message, Object... args) {
    log.warn(message + "; retrying in " + currentBackoff, args);
    nextAttemptNanos = System.nanoTime() + currentBackoff.toNanos();
    Duration doubled = currentBackoff.multipliedBy(2);
    currentBackoff = doubled.compareTo(config.maxRetryBackoff()) > 0 ? config.maxRetryBackoff() : doubled;
  }

  @Override
  public void close() {
    if (flushTimer != null) {
      flushTimer.cancel();
    }
    if (!batch.isEmpty() && !flush("close")) {
      log.warn("closing with {} unflushed writes; they are exported again from the last acknowledged position",
          batch.size());
    }
    if (store != null) {
      store.close();
    }
  }
}
