package dev.flowpipe.schema.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreContractTest;
import dev.flowpipe.schema.store.StoreProduct;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The store contract on a real OpenSearch 3.8. */
@ExtendWith(SharedOpenSearch.class)
class OpenSearchStoreTest extends SearchStoreContractTest {

  private final SearchStore store;

  OpenSearchStoreTest(SearchStore store, EmbeddedSearchStore node) {
    super(store, node.url());
    this.store = store;
  }

  @Test
  void isTheOpenSearchAdapter() {
    assertThat(store.product()).isEqualTo(StoreProduct.OPENSEARCH);
    assertThat(store.version()).startsWith("3.8");
  }
}
