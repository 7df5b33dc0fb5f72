package dev.flowpipe.webapp.readmodel;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import java.util.List;

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

  /**
   * Makes what was written to the entity indices searchable now, not at the store's next periodic refresh. The entities
   * share physical indices: each is refreshed once. An index that does not exist yet holds nothing to refresh.
   */
  default void refreshEntities(SearchStore store) {
    List<String> physical = ReadModelIndex.entities().stream()
        .map(index -> index.physicalIndexName(indexPrefix())).distinct().toList();
    for (String index : physical) {
      try {
        store.refresh(index);
      } catch (IllegalStateException e) {
        // the index does not exist (yet): nothing in it to make searchable
      }
    }
  }
}
