package dev.flowpipe.webapp.readmodel;

import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.schema.store.StoreUnavailableException;

/**
 * A read model in a store reached by URL. It connects on first use and again after a failed attempt, so the web app
 * starts (and answers 503) while the store is down, and serves as soon as it is up.
 */
public final class ConnectingReadModel implements ReadModel, AutoCloseable {

  private final StoreConnection connection;
  private final String indexPrefix;
  private SearchStore store;

  public ConnectingReadModel(StoreConnection connection, String indexPrefix) {
    this.connection = connection;
    this.indexPrefix = indexPrefix;
  }

  @Override
  public synchronized SearchStore store() {
    if (store == null) {
      try {
        store = SearchStoreConnector.connect(connection);
      } catch (StoreUnavailableException e) {
        throw e;
      } catch (RuntimeException e) {
        // credentials refused, or not a search store: nothing this request can fix either
        throw new StoreUnavailableException(e.getMessage(), e);
      }
    }
    return store;
  }

  @Override
  public String indexPrefix() {
    return indexPrefix;
  }

  @Override
  public synchronized void close() {
    if (store != null) {
      store.close();
      store = null;
    }
  }
}
