package dev.flowpipe.schema.store;

import java.util.Map;
import java.util.Objects;

/**
 * One write of a read-model document. Both kinds are guarded by the log position of the record they come from, so that
 * replaying a record that the store already holds changes nothing (the idempotence contract).
 */
public sealed interface DocumentWrite {

  String index();

  String id();

  /** Log position of the last record folded into this write. */
  long position();

  /**
   * The whole document. Written with external versioning, version = position: the store itself refuses (409) a write
   * whose position is not above the stored one, and that refusal means "already applied".
   */
  record Replace(String index, String id, long position, Map<String, Object> document) implements DocumentWrite {
    public Replace {
      Objects.requireNonNull(index);
      Objects.requireNonNull(id);
      Objects.requireNonNull(document);
    }
  }

  /**
   * Some fields of a document, created if missing. Applied only if the stored document's {@code position} is below
   * this one; the document's {@code position} field is then set to it.
   */
  record Merge(String index, String id, long position, Map<String, Object> fields) implements DocumentWrite {
    public Merge {
      Objects.requireNonNull(index);
      Objects.requireNonNull(id);
      Objects.requireNonNull(fields);
    }
  }
}
