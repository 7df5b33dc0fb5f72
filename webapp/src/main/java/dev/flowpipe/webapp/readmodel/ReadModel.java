package dev.flowpipe.webapp.readmodel;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;

/**
 * The read model the web app serves: a store and the index prefix the exporter writes under. Inside the node it is the
 * node's own store; on its own, a store reached by URL ({@link ConnectingReadModel}).
 */
public interface ReadModel {

  /**
   * The store client.
   *
   * @throws dev.flowpipe.schema.store.StoreUnavailableException when the store cannot be reached (yet)
   */
  SearchStore store();

  String indexPrefix();

  default String index(ReadModelIndex index) {
    return index.indexName(indexPrefix());
  }
}
