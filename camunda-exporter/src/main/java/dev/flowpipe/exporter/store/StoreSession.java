package dev.flowpipe.exporter.store;

import dev.flowpipe.exporter.config.ExporterConfiguration;
import dev.flowpipe.exporter.error.DeadLetters;
import dev.flowpipe.exporter.metrics.ExporterMetrics;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreConnection;
import java.time.InstantSource;
import java.util.function.Function;
import org.slf4j.Logger;

/**
 * The exporter's connection to the store: connects on first use (the store may boot beside the broker, so a failed
 * connect is simply tried again at the next flush), makes sure the schema exists, and holds the bulk writer.
 */
public final class StoreSession implements AutoCloseable {

  private final ExporterConfiguration config;
  private final int partitionId;
  private final Function<StoreConnection, SearchStore> connector;
  private final InstantSource clock;
  private final Logger log;
  private final ExporterMetrics metrics;
  private SearchStore store;
  private BulkWriter writer;

  public StoreSession(ExporterConfiguration config, int partitionId, Function<StoreConnection, SearchStore> connector,
      InstantSource clock, Logger log, ExporterMetrics metrics) {
    this.config = config;
    this.partitionId = partitionId;
    this.connector = connector;
    this.clock = clock;
    this.log = log;
    this.metrics = metrics;
  }

  /** Connects and ensures the schema unless connected already; throws when the store cannot be reached. */
  public void connect() {
    if (store != null) {
      return;
    }
    SearchStore connected = connector.apply(config.store());
    try {
      new SchemaManager(connected, config.indexPrefix(), config.indexLayout()).ensureSchema();
    } catch (RuntimeException e) {
      connected.close();
      throw e;
    }
    DeadLetters deadLetters = new DeadLetters(connected, config.indexPrefix(), partitionId, DeadLetters.MAX_COPY_CHARS, log,
        metrics::deadLetter, clock);
    writer = new BulkWriter(connected, deadLetters, config.bulkRefresh(),
        new ExportPositionMarker(connected, config.indexPrefix(), partitionId, log));
    store = connected;
    log.info("exporting to {} {} at {} ({})", connected.product(), connected.version(), config.store().url(),
        config.flushPolicy());
  }

  public boolean connected() {
    return store != null;
  }

  /** The writer of the connected session. */
  public BulkWriter writer() {
    if (writer == null) {
      throw new IllegalStateException("not connected");
    }
    return writer;
  }

  @Override
  public void close() {
    if (store != null) {
      store.close();
      store = null;
      writer = null;
    }
  }
}
