package dev.flowpipe.node.store;

import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.node.config.NodeStore;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.MigrationProgress;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreUnavailableException;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The search store the node writes to: the embedded OpenSearch it started, or the external store it checked. Ready
 * means reachable, and the read model's indices exist with the schema this build writes. An embedded store is
 * restarted when its process dies ({@link #embeddedStatus()}), and its disk is watched ({@link #disk()}).
 */
public final class RunningStore implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RunningStore.class);

  private final StoreConnection connection;
  // the same store, waiting flowpipe.store.schema-timeout for each answer: for preparing the schema only
  private final StoreConnection schemaConnection;
  private final EmbeddedSearchStore embedded;
  private final StoreDisk disk;
  private final NodeProperties properties;
  private final Clock clock;
  // what migrating an older read-model schema at start-up did; shown in the store's health
  private final MigrationProgress schemaMigration = new MigrationProgress();
  private volatile SearchStore client;

  private RunningStore(StoreConnection connection, StoreConnection schemaConnection, EmbeddedSearchStore embedded,
      StoreDisk disk, NodeProperties properties, Clock clock) {
    this.connection = connection;
    this.schemaConnection = schemaConnection;
    this.embedded = embedded;
    this.disk = disk;
    this.properties = properties;
    this.clock = clock;
  }

  /**
   * An external store is checked at once (so a bad URL fails start-up before anything is written); the embedded one
   * is launched without waiting, so the broker can start while it boots. {@link #awaitReady()} completes either.
   * {@code clock} is what the embedded store's supervisor and disk watch read.
   */
  public static RunningStore start(NodeProperties properties, NodeStore nodeStore, Clock clock) {
    var store = nodeStore.connection();
    if (!store.isEmbedded()) {
      RunningStore external = new RunningStore(store.connection(store.url()), store.schemaConnection(store.url()),
          null, null, properties, clock);
      try {
        external.awaitReady();
      } catch (RuntimeException e) {
        throw new IllegalStateException("flowpipe.store.url=" + store.url() + ": " + e.getMessage(), e);
      }
      return external;
    }
    var settings = nodeStore.embedded();
    EmbeddedSearchStore embedded =
        EmbeddedSearchStore.launch(
            properties.storeDirectory(),
            new EmbeddedSearchStore.Settings(
                EmbeddedSearchStore.Engine.OPENSEARCH,
                settings.httpPort(),
                settings.transportPort(),
                settings.heap().toMegabytes(),
                settings.startTimeout(),
                settings.stopTimeout(),
                settings.classpath(),
                settings.javaHome(),
                settings.niceness(),
                settings.jvmOptions(),
                settings.disk().watermarks(),
                settings.restart().policy()),
            clock,
            null);
    StoreDisk disk = new StoreDisk(StoreDisk.Space.of(properties.storeDirectory()), settings.disk().watermarks(),
        settings.disk().checkInterval(), clock);
    return new RunningStore(store.connection(embedded.url()), store.schemaConnection(embedded.url()), embedded, disk,
        properties, clock);
  }

  /**
   * Waits for the store, connects, and prepares the read model's schema, migrating an older one in place (or waiting
   * for the node that does); idempotent.
   */
  public synchronized void awaitReady() {
    if (client != null) {
      return;
    }
    if (embedded != null) {
      embedded.awaitReady();
    }
    // the schema is prepared on a connection of its own that waits schema-timeout for each answer: creating an index on
    // a loaded store can take far longer than the request timeout meant for searches and bulks
    StoreConnection preparing = schemaConnection;
    try (SearchStore schemaStore = SearchStoreConnector.connect(preparing)) {
      new SchemaManager(schemaStore, properties.exporter().indexPrefix(), properties.exporter().indexLayout(),
          schemaMigration, clock).ensureSchema();
    } catch (StoreUnavailableException e) {
      throw new StoreUnavailableException("preparing the read model's schema (flowpipe.store.schema-timeout="
          + preparing.requestTimeout() + " for each answer): " + e.getMessage(), e);
    }
    SearchStore connected = SearchStoreConnector.connect(connection);
    client = connected;
    LOG.info("search store ready: {} {} at {}", connected.product(), connected.version(), connection.url());
  }

  /** Whether start-up found an older read-model schema, and how far migrating it went. */
  public MigrationProgress.Snapshot schemaMigration() {
    return schemaMigration.snapshot();
  }

  public StoreConnection connection() {
    return connection;
  }

  /** The client on the store; only after {@link #awaitReady()}. */
  public SearchStore client() {
    SearchStore ready = client;
    if (ready == null) {
      throw new IllegalStateException("the search store is still starting");
    }
    return ready;
  }

  public boolean isEmbedded() {
    return embedded != null;
  }

  /** The embedded store's process as its supervisor sees it; empty for an external store. */
  public Optional<EmbeddedSearchStore.Status> embeddedStatus() {
    return Optional.ofNullable(embedded).map(EmbeddedSearchStore::status);
  }

  /** The embedded store's disk; empty for an external store, whose disk the node cannot see. */
  public Optional<StoreDisk> disk() {
    return Optional.ofNullable(disk);
  }

  /** The embedded store's disk is above its high watermark (never for an external store). */
  public boolean diskAboveHighWatermark() {
    return disk != null && disk.aboveHighWatermark();
  }

  /** The embedded store's process id, or -1 for an external store. */
  public long embeddedPid() {
    return embedded == null ? -1 : embedded.pid();
  }

  @Override
  public void close() {
    if (client != null) {
      client.close();
    }
    if (embedded != null) {
      embedded.close();
    }
  }
}
