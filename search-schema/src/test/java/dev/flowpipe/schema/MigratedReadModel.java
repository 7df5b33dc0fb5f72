package dev.flowpipe.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.PreviousSchemaReadModel;
import dev.flowpipe.testsupport.PreviousSchemaReadModel.Document;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The check that a read model of schema version 1, as {@link PreviousSchemaReadModel} wrote it, now lives in this
 * build's schema.
 */
public final class MigratedReadModel {

  private static final ObjectMapper JSON = new ObjectMapper();

  private MigratedReadModel() {}

  /**
   * Checks that the store holds the read model in this build's schema with every document {@code written}: under
   * its entity's name, with the same fields and the same version (its position), none twice, and no version-1 index
   * left.
   */
  public static void assertMigrated(SearchStore store, String prefix, Map<String, List<Document>> written) {
    Map<String, Long> versions = new LinkedHashMap<>();
    store.refresh(ReadModelIndex.sharedIndexName(prefix));
    store.scan(ReadModelIndex.sharedIndexName(prefix), 1000,
        page -> page.forEach(document -> versions.put(document.id(), document.version())));
    written.forEach((entity, documents) -> {
      ReadModelIndex index = named(entity);
      String name = index.indexName(prefix);
      store.refresh(name);
      assertThat(store.count(name)).as("documents in " + name).isEqualTo(documents.size());
      Map<String, Map<String, Object>> found = store.getAll(name, documents.stream().map(Document::id).toList());
      for (Document document : documents) {
        Map<String, Object> expected = new LinkedHashMap<>(document.fields());
        if (index.shared()) {
          expected.put("position", document.position());
          assertThat(versions.get(index.storedId(document.id()))).as("version of " + name + "/" + document.id())
              .isEqualTo(document.position());
        }
        assertThat(found.get(document.id())).as(name + "/" + document.id()).isEqualTo(asRead(expected));
      }
      String previous = PreviousSchemaReadModel.indexName(prefix, entity);
      assertThat(store.indexExists(previous)).as(previous + " left").isFalse();
    });
  }

  private static ReadModelIndex named(String entity) {
    return Arrays.stream(ReadModelIndex.values()).filter(index -> index.entity().equals(entity)).findFirst()
        .orElseThrow(() -> new AssertionError("no index of this build holds the version-1 entity " + entity));
  }

  /** The document as a store hands it back (numbers as JSON reads them). */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> asRead(Map<String, Object> document) {
    try {
      return JSON.readValue(JSON.writeValueAsString(document), Map.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
