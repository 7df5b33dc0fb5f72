package dev.flowpipe.writer.handler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one record does to one read-model document: field edits in plain data (see {@link FieldEdit} for why no code),
 * applied in log order.
 *
 * <p>{@code creates} marks a record that gives the whole document (an entity's first record, or a variable update,
 * which carries every field): the document starts anew from it, with no need of its earlier version. Any other change
 * applies to the document as the store (or the exporter's cache) last had it, skipping changes at or below the
 * position that document already reflects. Because a replay is always a suffix of the log, this gives the same
 * document as one clean pass, whatever the position the replay starts from.
 *
 * @param index target index
 * @param id document id
 * @param position log position of the record
 * @param creates whether this record gives the whole document
 * @param edits the field edits, in order
 */
public record DocumentChange(String index, String id, long position, boolean creates, List<FieldEdit> edits) {

  public DocumentChange {
    Objects.requireNonNull(index);
    Objects.requireNonNull(id);
    edits = List.copyOf(edits);
  }

  /** A change that gives the whole document, built with {@link Builder#put}. */
  public static Builder create(String index, long key, long position) {
    return new Builder(index, String.valueOf(key), position, true);
  }

  /** A change that gives the whole document with this id. */
  public static Builder create(String index, String id, long position) {
    return new Builder(index, id, position, true);
  }

  /** A change of some fields of an existing document. */
  public static Builder update(String index, long key, long position) {
    return new Builder(index, String.valueOf(key), position, false);
  }

  public void applyTo(Map<String, Object> document) {
    for (FieldEdit edit : edits) {
      edit.applyTo(document);
    }
  }

  public long estimatedBytes() {
    long bytes = 64 + id.length();
    for (FieldEdit edit : edits) {
      bytes += edit.estimatedBytes();
    }
    return bytes;
  }

  /** Collects the edits of one change. */
  public static final class Builder {
    private final String index;
    private final String id;
    private final long position;
    private final boolean creates;
    private final List<FieldEdit> edits = new ArrayList<>();

    private Builder(String index, String id, long position, boolean creates) {
      this.index = index;
      this.id = id;
      this.position = position;
      this.creates = creates;
    }

    public Builder put(String field, Object value) {
      return edit(new FieldEdit.Put(field, value));
    }

    public Builder edit(FieldEdit edit) {
      edits.add(edit);
      return this;
    }

    public DocumentChange build() {
      return new DocumentChange(index, id, position, creates, edits);
    }
  }
}
