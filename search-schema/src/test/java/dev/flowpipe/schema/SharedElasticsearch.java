package dev.flowpipe.schema;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;

/**
 * One real, bare Elasticsearch 9 node (the embedded-elasticsearch child JVM) for all tests of this JVM; see
 * {@link SharedOpenSearch}. Tests that use both declare both extensions and tell the stores apart by type.
 */
public final class SharedElasticsearch extends SharedOpenSearch {

  public SharedElasticsearch() {
    super(EmbeddedSearchStore.Engine.ELASTICSEARCH);
  }
}
