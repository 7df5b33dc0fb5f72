package dev.flowpipe.systemtests;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A read model to check, as documents with the read model's field names: straight from the store, or as a node's web
 * app serves it ({@link WebAppReadModel}).
 */
public interface ReadModelSource {

  /** Hands over every document of the entity, a variable's full value in {@code fullValue} when it is truncated. */
  public void forEach(ReadModelIndex entity, Consumer<Map<String, Object>> each);

  /** The read model under {@code prefix} in the store, everything written so far (refreshed first). */
  public static ReadModelSource of(SearchStore store, String prefix) {
    return (entity, each) -> {
      String index = entity.indexName(prefix);
      store.refresh(index);
      new DocumentCursor(store, index).forEachRemaining(hit -> each.accept(hit.source()));
    };
  }

  /** {@code source} read once per entity and kept, for several checks of the same read model. */
  public static ReadModelSource kept(ReadModelSource source) {
    Map<ReadModelIndex, List<Map<String, Object>>> documents = new HashMap<>();
    return (entity, each) -> documents.computeIfAbsent(entity, e -> {
      List<Map<String, Object>> read = new ArrayList<>();
      source.forEach(e, read::add);
      return read;
    }).forEach(each);
  }
}
