package dev.flowpipe.schema.retention;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.schema.index.IndexLayout;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * Creates a period's index (ADR 0011): the shared read-model body, and per entity two filtered aliases: the entity's
 * global name, so that searches span the base and every period (not the write index: writes to that name still go to
 * the base), and the period's own name, the write index the exporter writes and reads bases through.
 */
public final class PeriodIndices {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final SearchStore store;
  private final String prefix;
  private final IndexLayout layout;

  public PeriodIndices(SearchStore store, String prefix, IndexLayout layout) {
    this.store = Objects.requireNonNull(store);
    this.prefix = Objects.requireNonNull(prefix);
    this.layout = Objects.requireNonNull(layout);
  }

  /** Creates the period's index with its aliases in one step, if missing; true when this call created it. */
  public boolean ensure(Period period) {
    String index = period.indexName(prefix);
    return !store.indexExists(index) && store.createIndex(index, body(period));
  }

  String body(Period period) {
    try {
      ObjectNode body = (ObjectNode) JSON.readTree(ReadModelIndex.sharedIndexBody(prefix, layout, false));
      ObjectNode aliases = body.putObject("aliases");
      for (ReadModelIndex entity : ReadModelIndex.entities()) {
        aliases.set(entity.indexName(prefix), alias(entity, false));
        aliases.set(period.entityName(prefix, entity), alias(entity, true));
      }
      return JSON.writeValueAsString(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ObjectNode alias(ReadModelIndex entity, boolean writeIndex) {
    ObjectNode alias = JSON.createObjectNode();
    alias.putObject("filter").putObject("term").put(ReadModelIndex.KIND_FIELD, entity.entity());
    alias.put("is_write_index", writeIndex);
    return alias;
  }
}
