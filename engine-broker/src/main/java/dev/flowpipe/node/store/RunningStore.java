package dev.flowpipe.node.store;

import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.node.config.StoreProperties;
import dev.flowpipe.schema.embedded.EmbeddedOpenSearch;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The search store the node writes to: the embedded OpenSearch it started, or the external store it checked. Ready
 * means reachable, and the read model's indices exist with the schema this build writes.
 */
public final class RunningStore implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RunningStore.class);

  private final StoreConnection connection;
  private final EmbeddedOpenSearch embedded;
  private final SearchStore client;

  private RunningStore(StoreConnection connection, EmbeddedOpenSearch embedded, SearchStore client) {
    this.connection = connection;
    this.embedded = embedded;
    this.client = client;
  }

  /** Starts or connects to the store and prepares the schema; fails naming the setting at fault. */
  public static RunningStore start(NodeProperties properties) {
    StoreProperties store = properties.store();
    EmbeddedOpenSearch embedded = null;
    String url = store.url();
    if (store.isEmbedded()) {
      var settings = store.embedded();
      embedded =
          EmbeddedOpenSearch.start(
              properties.storeDirectory(),
              new EmbeddedOpenSearch.Settings(
                  settings.httpPort(),
                  settings.transportPort(),
                  settings.heap().toMegabytes(),
                  settings.startTimeout(),
                  settings.stopTimeout(),
                  settings.classpath(),
                  settings.javaHome()));
      url = embedded.url();
    }
    StoreConnection connection =
        new StoreConnection(
            URI.create(url), store.username(), store.password(), store.connectTimeout(), store.requestTimeout());
    SearchStore client;
    try {
      client = SearchStoreConnector.connect(connection);
    } catch (RuntimeException e) {
      if (embedded != null) {
        embedded.close();
        throw e;
      }
      throw new IllegalStateException("flowpipe.store.url=" + store.url() + ": " + e.getMessage(), e);
    }
    try {
      new SchemaManager(
              client,
              properties.exporter().indexPrefix(),
              properties.exporter().indexRefreshInterval().toMillis() + "ms")
          .ensureSchema();
    } catch (RuntimeException e) {
      client.close();
      if (embedded != null) {
        embedded.close();
      }
      throw e;
    }
    LOG.info("search store ready: {} {} at {}", client.product(), client.version(), url);
    return new RunningStore(connection, embedded, client);
  }

  public StoreConnection connection() {
    return connection;
  }

  public SearchStore client() {
    return client;
  }

  public boolean isEmbedded() {
    return embedded != null;
  }

  /** The embedded store's process id, or -1 for an external store. */
  public long embeddedPid() {
    return embedded == null ? -1 : embedded.pid();
  }

  @Override
  public void close() {
    client.close();
    if (embedded != null) {
      embedded.close();
    }
  }
}
