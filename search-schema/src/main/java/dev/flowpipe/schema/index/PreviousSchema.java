package dev.flowpipe.schema.index;

import dev.flowpipe.schema.store.SearchStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The read model as schema version 1 laid it out, the one this build migrates from: one index per entity,
 * {@code <prefix>-<entity>-v1}, each document under the caller's own id and versioned by its log position, plus
 * {@code <prefix>-dead-letter-v1}. (Version 2 put the entities into one shared index behind aliases.)
 */
final class PreviousSchema {

  static final int VERSION = 1;

  private final SearchStore store;
  private final String prefix;

  PreviousSchema(SearchStore store, String prefix) {
    this.store = store;
    this.prefix = prefix;
  }

  /** The version-1 index of an entity or of the dead letters. */
  String indexName(ReadModelIndex index) {
    return prefix + "-" + index.entity() + "-v" + VERSION;
  }

  /** The version-1 index of this entity, if the store holds one that really is of version 1. */
  Optional<String> existing(ReadModelIndex index) {
    String name = indexName(index);
    if (index == ReadModelIndex.EXPORT_POSITION || index == ReadModelIndex.LOG_IDENTITY || !store.indexExists(name)) {
      return Optional.empty(); // version 1 had no export positions and no log identities
    }
    Object version;
    try {
      version = store.mappingMeta(name).get("schemaVersion");
    } catch (IllegalStateException e) {
      if (!store.indexExists(name)) {
        return Optional.empty(); // deleted in between by the process that has just finished migrating it
      }
      throw e;
    }
    return version instanceof Number number && number.intValue() == VERSION ? Optional.of(name) : Optional.empty();
  }

  /** Whether anything of version 1 is left in the store. */
  boolean present() {
    return !existingIndices().isEmpty();
  }

  List<String> existingIndices() {
    List<String> names = new ArrayList<>();
    for (ReadModelIndex index : ReadModelIndex.values()) {
      existing(index).ifPresent(names::add);
    }
    return names;
  }
}
