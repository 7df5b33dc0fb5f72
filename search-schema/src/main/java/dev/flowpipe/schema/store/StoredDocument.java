package dev.flowpipe.schema.store;

import java.util.Map;
import java.util.Objects;

/**
 * A document as the store holds it in a physical index, read by {@link SearchStore#scan}: its stored id and source
 * (no entity translation) and its version, which for read-model documents is the log position of their last record.
 */
public record StoredDocument(String id, long version, Map<String, Object> source) {

  public StoredDocument {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(source, "source");
  }
}
