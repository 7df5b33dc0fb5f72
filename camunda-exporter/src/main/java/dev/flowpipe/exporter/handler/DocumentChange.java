package dev.flowpipe.exporter.handler;

import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What one record does to one read-model document: a deterministic change of its fields, applied in log order.
 *
 * <p>{@code creates} marks the entity's first record (the process element activating, a job created...): the
 * document starts empty from it. Any other change applies to the document as the store (or the exporter's cache) last
 * had it, skipping changes at or below the position that document already reflects. Because a replay is always a
 * suffix of the log, this gives the same document as one clean pass, whatever the position the replay starts from.
 *
 * @param index target index
 * @param id document id
 * @param position log position of the record
 * @param creates whether this record starts the document
 * @param apply the change, given the document's fields
 */
public record DocumentChange(
    String index, String id, long position, boolean creates, Consumer<Map<String, Object>> apply) {

  public DocumentChange {
    Objects.requireNonNull(index);
    Objects.requireNonNull(id);
    Objects.requireNonNull(apply);
  }

  public static DocumentChange create(String index, long key, long position, Consumer<Map<String, Object>> apply) {
    return new DocumentChange(index, String.valueOf(key), position, true, apply);
  }

  public static DocumentChange update(String index, long key, long position, Consumer<Map<String, Object>> apply) {
    return new DocumentChange(index, String.valueOf(key), position, false, apply);
  }
}
