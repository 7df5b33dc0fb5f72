package dev.flowpipe.schema.store;

/** The search engine behind a URL, as it names itself on {@code GET /}. */
public enum StoreProduct {
  OPENSEARCH,
  ELASTICSEARCH
}
