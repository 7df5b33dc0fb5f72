package dev.flowpipe.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A read model of schema version 1 (one index per entity, {@code <prefix>-<entity>-v1}), built in a real store from
 * the version-1 mappings kept frozen under {@code src/test/resources/flowpipe/schema-v1/} (as commit 908a6be^ had
 * them), with documents written as that version's exporter wrote them: own ids, external version = log position.
 */
public final class PreviousSchemaFixture {

  private static final ObjectMapper JSON = new ObjectMapper();

  private PreviousSchemaFixture() {}

  /** The entities version 1 had (those added since have no frozen mapping, and nothing to migrate). */
  public static List<ReadModelIndex> versionOneEntities() {
    return ReadModelIndex.entities().stream()
        .filter(entity -> PreviousSchemaFixture.class.getResource("/flowpipe/schema-v1/" + entity.entity() + ".json")
            != null)
        .toList();
  }

  /** The version-1 index of an entity or of the dead letters. */
  public static String indexName(String prefix, ReadModelIndex index) {
    return prefix + "-" + index.entity() + "-v1";
  }

  /**
   * Creates the version-1 indices and writes {@code perEntity} documents into each entity's index and two dead
   * letters; returns what it wrote, by index.
   */
  public static Map<ReadModelIndex, List<DocumentWrite>> write(SearchStore store, String prefix, int perEntity) {
    Map<ReadModelIndex, List<DocumentWrite>> written = new LinkedHashMap<>();
    for (ReadModelIndex entity : versionOneEntities()) {
      String index = indexName(prefix, entity);
      store.createIndex(index, body(entity));
      List<DocumentWrite> writes = new ArrayList<>();
      for (int i = 1; i <= perEntity; i++) {
        long key = 2251799813685248L + i;
        // positions differ per document, as each document's last record sits elsewhere in the log
        writes.add(new DocumentWrite(index, String.valueOf(key), 1000L * i + entity.ordinal(), document(entity, key)));
      }
      for (int from = 0; from < writes.size(); from += 500) {
        BulkOutcome outcome = store.bulk(writes.subList(from, Math.min(writes.size(), from + 500)));
        if (!outcome.failures().isEmpty()) {
          throw new IllegalStateException("fixture write failed: " + outcome.failures().getFirst());
        }
      }
      store.refresh(index);
      written.put(entity, writes);
    }
    String deadLetters = indexName(prefix, ReadModelIndex.DEAD_LETTER);
    store.createIndex(deadLetters, body(ReadModelIndex.DEAD_LETTER));
    List<DocumentWrite> letters = new ArrayList<>();
    for (int i = 1; i <= 2; i++) {
      Map<String, Object> letter = Map.of("targetIndex", indexName(prefix, ReadModelIndex.VARIABLE),
          "documentId", "dl-" + i, "position", 77L + i, "partitionId", 1, "status", 400,
          "reason", "mapper_parsing_exception: too large", "time", "2026-11-01T10:00:00Z");
      store.put(deadLetters, "1-" + (77 + i), letter);
      letters.add(new DocumentWrite(deadLetters, "1-" + (77 + i), 77L + i, letter));
    }
    store.refresh(deadLetters);
    written.put(ReadModelIndex.DEAD_LETTER, letters);
    return written;
  }

  /**
   * Checks that the store holds the read model in this build's schema with every document {@link #write} wrote: under
   * its entity's name, with the same fields and the same version (its position), none twice, and no version-1 index
   * left.
   */
  public static void assertMigrated(SearchStore store, String prefix, Map<ReadModelIndex, List<DocumentWrite>> written) {
    Map<String, Long> versions = new LinkedHashMap<>();
    store.refresh(ReadModelIndex.sharedIndexName(prefix));
    store.scan(ReadModelIndex.sharedIndexName(prefix), 1000,
        page -> page.forEach(document -> versions.put(document.id(), document.version())));
    written.forEach((index, writes) -> {
      String name = index.indexName(prefix);
      store.refresh(name);
      assertThat(store.count(name)).as("documents in " + name).isEqualTo(writes.size());
      Map<String, Map<String, Object>> found = store.getAll(name, writes.stream().map(DocumentWrite::id).toList());
      for (DocumentWrite write : writes) {
        Map<String, Object> expected = new LinkedHashMap<>(write.document());
        if (index.shared()) {
          expected.put("position", write.position());
          assertThat(versions.get(index.storedId(write.id()))).as("version of " + name + "/" + write.id())
              .isEqualTo(write.position());
        }
        assertThat(found.get(write.id())).as(name + "/" + write.id()).isEqualTo(asRead(expected));
      }
      assertThat(store.indexExists(indexName(prefix, index))).as(indexName(prefix, index) + " left").isFalse();
    });
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

  private static Map<String, Object> document(ReadModelIndex entity, long key) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("key", key);
    document.put("tenantId", "<default>");
    document.put("partitionId", 1);
    switch (entity) {
      case VARIABLE -> {
        document.put("name", "order" + key);
        document.put("value", "\"v" + key + "\"");
        document.put("scopeKey", key - 1);
      }
      case PROCESS_DEFINITION -> {
        document.put("bpmnProcessId", "order-process");
        document.put("version", (int) (key % 7) + 1);
      }
      default -> {
        document.put("bpmnProcessId", "order-process");
        document.put("state", key % 2 == 0 ? "ACTIVE" : "COMPLETED");
      }
    }
    return document;
  }

  private static String body(ReadModelIndex index) {
    String resource = "/flowpipe/schema-v1/" + index.entity() + ".json";
    try (InputStream in = PreviousSchemaFixture.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${refreshInterval}", "1s");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
