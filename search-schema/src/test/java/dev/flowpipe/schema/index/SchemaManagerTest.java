package dev.flowpipe.schema.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.store.SearchStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SharedOpenSearch.class)
class SchemaManagerTest {

  private final SearchStore store;

  SchemaManagerTest(SearchStore store) {
    this.store = store;
  }

  @Test
  void createsEveryReadModelIndexOnceAndAcceptsThemOnTheNextStart() {
    String prefix = SharedOpenSearch.uniquePrefix();

    new SchemaManager(store, prefix, "1s").ensureSchema();
    new SchemaManager(store, prefix, "1s").ensureSchema();

    for (ReadModelIndex index : ReadModelIndex.values()) {
      assertThat(store.indexExists(index.indexName(prefix))).as(index.indexName(prefix)).isTrue();
      assertThat(store.mappingMeta(index.indexName(prefix))).containsEntry("schemaVersion", 1);
    }
  }

  @Test
  void refusesAnExistingIndexOfAnotherSchemaVersionNamingIt() {
    String prefix = SharedOpenSearch.uniquePrefix();
    String clash = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    store.createIndex(clash, "{\"mappings\": {\"_meta\": {\"schemaVersion\": 0}}}");

    assertThatThrownBy(() -> new SchemaManager(store, prefix, "1s").ensureSchema())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(clash)
        .hasMessageContaining("schemaVersion 0");
  }

  @Test
  void rejectsABadPrefixOrRefreshIntervalNamingTheValue() {
    assertThatThrownBy(() -> new SchemaManager(store, "Upper Case", "1s"))
        .hasMessageContaining("'Upper Case'");
    assertThatThrownBy(() -> new SchemaManager(store, "ok", "soon")).hasMessageContaining("soon");
  }
}
