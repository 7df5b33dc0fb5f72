package dev.flowpipe.schema.store;

import java.util.Map;
import java.util.Objects;

/**
 * One write of a whole read-model document, versioned by the log position of the last record folded into it.
 *
 * <p>Written with external versioning (version = position): the store itself refuses, with a 409, a write whose
 * position is not above the one it holds, and that refusal means "already applied". This needs no script in the store,
 * so it behaves the same on OpenSearch and Elasticsearch, and a replayed record can never overwrite newer state.
 *
 * @param index target index
 * @param id document id
 * @param position log position of the last record folded into the document; its version in the store
 * @param document the whole document; its {@code position} field is set to {@code position} when written
 */
public record DocumentWrite(String index, String id, long position, Map<String, Object> document) {

  public DocumentWrite {
    Objects.requireNonNull(index, "index");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(document, "document");
    if (position < 0) {
      throw new IllegalArgumentException("position must be >= 0, was " + position);
    }
  }
}
