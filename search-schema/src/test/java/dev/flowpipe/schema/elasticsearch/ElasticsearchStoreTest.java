package dev.flowpipe.schema.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.SharedElasticsearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreContractTest;
import dev.flowpipe.schema.store.StoreProduct;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The store contract on a real, bare Elasticsearch 9 node. */
@ExtendWith(SharedElasticsearch.class)
class ElasticsearchStoreTest extends SearchStoreContractTest {

  private final SearchStore store;

  ElasticsearchStoreTest(SearchStore store, EmbeddedSearchStore node) {
    super(store, node.url());
    this.store = store;
  }

  @Test
  void isTheElasticsearchAdapter() {
    assertThat(store.product()).isEqualTo(StoreProduct.ELASTICSEARCH);
    assertThat(store.version()).startsWith("9.");
  }
}
