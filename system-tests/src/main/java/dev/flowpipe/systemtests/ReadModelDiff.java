package dev.flowpipe.systemtests;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.protocol.Protocol;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Two read models in one store, under two index prefixes, compared document by document and field by field, every
 * entity and every field: the expected one (a clean pass) and the actual one (what the node wrote). A document only
 * in the expected model is lost, one only in the actual model is extra, an id listed twice is duplicated, and a
 * document present in both with any field unequal (or present in one only) is different. Dead letters of the actual
 * model count as differences too: a correct run has none.
 */
public final class ReadModelDiff {

  /** The field name under which a missing, extra or duplicated document is reported. */
  static final String WHOLE_DOCUMENT = "(document)";
  static final String ABSENT = "(absent)";
  private static final int SHOWN_CHARACTERS = 80;

  private ReadModelDiff() {}

  /**
   * One difference: a field of one document (or the whole document).
   *
   * @param expectedPosition the log position the expected document reflects (-1 if there is none)
   * @param actualPosition the log position the node's document reflects (-1 if there is none)
   */
  public record Difference(String index, String id, String field, String expected, String actual, long expectedPosition,
      long actualPosition) {}

  /** The counts of one entity. */
  public record IndexCounts(String index, long expected, long actual, long lost, long extra, long duplicated,
      long different) {}

  public record Result(List<IndexCounts> indices, List<Difference> differences) {

    long compared() {
      return indices.stream().mapToLong(IndexCounts::expected).sum();
    }

    long lost() {
      return indices.stream().mapToLong(IndexCounts::lost).sum();
    }

    long extra() {
      return indices.stream().mapToLong(IndexCounts::extra).sum();
    }

    long duplicated() {
      return indices.stream().mapToLong(IndexCounts::duplicated).sum();
    }

    long different() {
      return indices.stream().mapToLong(IndexCounts::different).sum();
    }

    boolean same() {
      return differences.isEmpty();
    }
  }

  /**
   * Compares every entity derived from the log ({@link ReadModelIndex#fromRecords()}), and lists the dead letters of both
   * models as differences. The export-position marks are not part of the read model (they say how far a run got,
   * which depends on where its bulks ended); {@link #highestPositions} serves to check them.
   */
  public static Result compare(SearchStore store, String expectedPrefix, String actualPrefix) {
    List<IndexCounts> indices = new ArrayList<>();
    List<Difference> differences = new ArrayList<>();
    for (ReadModelIndex entity : ReadModelIndex.fromRecords()) {
      String expected = entity.indexName(expectedPrefix);
      String actual = entity.indexName(actualPrefix);
      store.refresh(expected);
      store.refresh(actual);
      indices.add(new Comparison(entity.entity(), differences)
          .run(new DocumentCursor(store, expected), new DocumentCursor(store, actual)));
    }
    indices.add(deadLetters(store, expectedPrefix, actualPrefix, differences));
    return new Result(indices, differences);
  }

  /** Documents an exporter gave up on: a correct run has none, so each one is a difference. */
  private static IndexCounts deadLetters(SearchStore store, String expectedPrefix, String actualPrefix,
      List<Difference> differences) {
    String entity = ReadModelIndex.DEAD_LETTER.entity();
    SearchHits expected = deadLetters(store, expectedPrefix);
    for (SearchHits.Hit hit : expected.hits()) {
      differences.add(new Difference(entity, hit.id(), WHOLE_DOCUMENT, "a dead letter of the clean pass: "
          + shown(hit.source()), ABSENT, -1, -1));
    }
    SearchHits actual = deadLetters(store, actualPrefix);
    for (SearchHits.Hit hit : actual.hits()) {
      differences.add(new Difference(entity, hit.id(), WHOLE_DOCUMENT, ABSENT, shown(hit.source()), -1, -1));
    }
    return new IndexCounts(entity, expected.total(), actual.total(), 0, 0, 0, expected.total() + actual.total());
  }

  private static SearchHits deadLetters(SearchStore store, String prefix) {
    String index = ReadModelIndex.DEAD_LETTER.indexName(prefix);
    store.refresh(index);
    return store.search(SearchQuery.of(index, List.of(), List.of(), 1_000));
  }

  /**
   * Per partition, the highest log position any document of the read model under {@code prefix} reflects (process
   * definitions left out: every partition writes the same definition document, so its position is no partition's).
   */
  public static Map<Integer, Long> highestPositions(SearchStore store, String prefix) {
    Map<Integer, Long> highest = new java.util.TreeMap<>();
    for (ReadModelIndex entity : ReadModelIndex.entities()) {
      if (entity == ReadModelIndex.PROCESS_DEFINITION) {
        continue;
      }
      String index = entity.indexName(prefix);
      store.refresh(index);
      new DocumentCursor(store, index).forEachRemaining(hit -> {
        Long key = DocumentCursor.key(hit);
        long position = position(hit.source());
        if (key != null && position >= 0) {
          highest.merge(Protocol.decodePartitionId(key), position, Math::max);
        }
      });
    }
    return highest;
  }

  /** One entity: a merge of the two key-ordered cursors. */
  private static final class Comparison {
    private final String entity;
    private final List<Difference> differences;
    private long expectedCount;
    private long actualCount;
    private long lost;
    private long extra;
    private long duplicated;
    private long different;

    Comparison(String entity, List<Difference> differences) {
      this.entity = entity;
      this.differences = differences;
    }

    IndexCounts run(DocumentCursor expectedCursor, DocumentCursor actualCursor) {
      Peeking expected = new Peeking(expectedCursor);
      Peeking actual = new Peeking(actualCursor);
      while (expected.keyed() && actual.keyed()) {
        int order = Long.compare(DocumentCursor.key(expected.head), DocumentCursor.key(actual.head));
        if (order < 0) {
          lost(expected.take());
        } else if (order > 0) {
          extra(actual.take());
        } else {
          compareDocuments(expected.take(), actual.take());
        }
      }
      while (expected.keyed()) {
        lost(expected.take());
      }
      while (actual.keyed()) {
        extra(actual.take());
      }
      // documents without a key, by id
      Map<String, SearchHits.Hit> expectedById = expected.rest();
      Map<String, SearchHits.Hit> actualById = actual.rest();
      expectedById.forEach((id, hit) -> {
        SearchHits.Hit other = actualById.remove(id);
        if (other == null) {
          lost(hit);
        } else {
          compareDocuments(hit, other);
        }
      });
      actualById.values().forEach(this::extra);
      duplicated = expected.duplicates + actual.duplicates;
      for (SearchHits.Hit hit : expected.duplicateHits) {
        differences.add(new Difference(entity, hit.id(), WHOLE_DOCUMENT, "listed twice in the expected model", "",
            position(hit.source()), -1));
      }
      for (SearchHits.Hit hit : actual.duplicateHits) {
        differences.add(new Difference(entity, hit.id(), WHOLE_DOCUMENT, "once", "listed twice", -1,
            position(hit.source())));
      }
      return new IndexCounts(entity, expectedCount, actualCount, lost, extra, duplicated, different);
    }

    private void lost(SearchHits.Hit hit) {
      expectedCount++;
      lost++;
      differences.add(new Difference(entity, hit.id(), WHOLE_DOCUMENT, "present", ABSENT, position(hit.source()), -1));
    }

    private void extra(SearchHits.Hit hit) {
      actualCount++;
      extra++;
      differences.add(new Difference(entity, hit.id(), WHOLE_DOCUMENT, ABSENT, "present", -1, position(hit.source())));
    }

    private void compareDocuments(SearchHits.Hit expected, SearchHits.Hit actual) {
      expectedCount++;
      actualCount++;
      if (!expected.id().equals(actual.id())) {
        throw new IllegalStateException(entity + ": documents " + expected.id() + " and " + actual.id()
            + " share a key");
      }
      Map<String, Object> want = expected.source();
      Map<String, Object> have = actual.source();
      Set<String> fields = new LinkedHashSet<>(want.keySet());
      fields.addAll(have.keySet());
      boolean same = true;
      for (String field : fields) {
        if (want.containsKey(field) != have.containsKey(field) || !Objects.equals(want.get(field), have.get(field))) {
          same = false;
          differences.add(new Difference(entity, expected.id(), field, shown(want, field), shown(have, field),
              position(want), position(have)));
        }
      }
      if (!same) {
        different++;
      }
    }
  }

  /** A cursor with its next document in view, counting ids listed twice in a row. */
  private static final class Peeking {
    private final Iterator<SearchHits.Hit> cursor;
    private SearchHits.Hit head;
    private String lastId;
    long duplicates;
    final List<SearchHits.Hit> duplicateHits = new ArrayList<>();

    Peeking(Iterator<SearchHits.Hit> cursor) {
      this.cursor = cursor;
      advance();
    }

    private void advance() {
      head = null;
      while (cursor.hasNext()) {
        SearchHits.Hit next = cursor.next();
        if (next.id().equals(lastId)) {
          duplicates++;
          duplicateHits.add(next);
          continue;
        }
        lastId = next.id();
        head = next;
        return;
      }
    }

    boolean keyed() {
      return head != null && DocumentCursor.key(head) != null;
    }

    SearchHits.Hit take() {
      SearchHits.Hit taken = head;
      advance();
      return taken;
    }

    Map<String, SearchHits.Hit> rest() {
      Map<String, SearchHits.Hit> byId = new LinkedHashMap<>();
      while (head != null) {
        if (byId.putIfAbsent(head.id(), head) != null) {
          duplicates++;
          duplicateHits.add(head);
        }
        advance();
      }
      return byId;
    }
  }

  private static long position(Map<String, Object> document) {
    return document.get("position") instanceof Number position ? position.longValue() : -1;
  }

  private static String shown(Map<String, Object> document, String field) {
    return document.containsKey(field) ? shown(document.get(field)) : ABSENT;
  }

  /** A value as the report shows it: long texts cut, with their length. */
  public static String shown(Object value) {
    String text = String.valueOf(value);
    return text.length() <= SHOWN_CHARACTERS ? text
        : text.substring(0, SHOWN_CHARACTERS - 20) + "... (" + text.length() + " characters)";
  }
}
