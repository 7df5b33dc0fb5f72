package dev.flowpipe.writer.retention;

import dev.flowpipe.schema.index.ReadModelIndex;
import java.util.Optional;

/**
 * The index name a routed change carries through the buffer (ADR 0011): the entity's name with the instance the
 * document belongs to, {@code <prefix>-variable-v2|<partition>|<instanceKey>}. The period is decided only when the
 * store is written ({@link RoutingStore}), where the bucket table is loaded; until then the name is as stable as the
 * document's id (a document never changes instance), so the buffer folds and caches it like any other.
 */
record RoutedIndex(String entityName, ReadModelIndex entity, int partition, long instanceKey) {

  private static final char SEPARATOR = '|';

  String name() {
    return entityName + SEPARATOR + partition + SEPARATOR + instanceKey;
  }

  /** The routed index a name stands for; empty for any other name (process definitions, dead letters...). */
  static Optional<RoutedIndex> parse(String name) {
    int last = name.lastIndexOf(SEPARATOR);
    int first = last < 0 ? -1 : name.lastIndexOf(SEPARATOR, last - 1);
    if (first < 0) {
      return Optional.empty();
    }
    String entityName = name.substring(0, first);
    return ReadModelIndex.sharedEntityOf(entityName).map(entity -> new RoutedIndex(entityName, entity,
        Integer.parseInt(name.substring(first + 1, last)), Long.parseLong(name.substring(last + 1))));
  }

  /** Whether documents of this entity are routed to periods: all of the shared index but the deployed definitions. */
  static boolean routes(ReadModelIndex entity) {
    return entity.shared() && entity != ReadModelIndex.PROCESS_DEFINITION
        && entity != ReadModelIndex.DECISION_DEFINITION && entity != ReadModelIndex.DECISION_REQUIREMENTS;
  }
}
