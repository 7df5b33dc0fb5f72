package dev.flowpipe.writer.handler;

import dev.flowpipe.schema.index.ElementEntries;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One edit of one field of a read-model document, as plain immutable data.
 *
 * <p>Why data and not code: the broker hands {@code export()} a record object that it reuses for the next record of
 * the same value type, while a document change may be applied much later (when the bulk thread has read the
 * document's base from the store, or when a failed bulk is settled). An edit holds only values taken from the record
 * inside {@code export()}, and {@link Put} accepts only immutable values, so no edit can reach a record afterwards.
 */
public sealed interface FieldEdit {

  void applyTo(Map<String, Object> document);

  /** About how much memory the edit holds, for the buffer's memory limit. */
  default long estimatedBytes() {
    return 48;
  }

  /** Sets a field to a value: null, a string, a boolean or a boxed number. */
  record Put(String field, Object value) implements FieldEdit {
    public Put {
      Objects.requireNonNull(field);
      if (value != null && !(value instanceof String) && !(value instanceof Boolean) && !(value instanceof Long)
          && !(value instanceof Integer) && !(value instanceof Double)) {
        throw new IllegalArgumentException(
            "field " + field + ": only immutable values (String, Boolean, Long, Integer, Double) may be put, was "
                + value.getClass().getName());
      }
    }

    @Override
    public void applyTo(Map<String, Object> document) {
      document.put(field, value);
    }

    @Override
    public long estimatedBytes() {
      return 32L + field.length() + (value instanceof String s ? 2L * s.length() : 16);
    }
  }

  /** Sets a field to a map of strings (a job's custom headers), held as an immutable copy. */
  record PutStrings(String field, Map<String, String> values) implements FieldEdit {
    public PutStrings {
      Objects.requireNonNull(field);
      values = Map.copyOf(values);
    }

    @Override
    public void applyTo(Map<String, Object> document) {
      document.put(field, values);
    }

    @Override
    public long estimatedBytes() {
      long bytes = 32L + field.length();
      for (Map.Entry<String, String> entry : values.entrySet()) {
        bytes += 48L + 2L * (entry.getKey().length() + entry.getValue().length());
      }
      return bytes;
    }
  }

  /**
   * Sets a field to a list of rows (a decision instance's inputs, its matched rules with their outputs), held as an
   * immutable copy: each row maps names to strings, boxed numbers, booleans or lists of such rows; null values are left
   * out.
   */
  record PutRows(String field, List<Map<String, Object>> rows) implements FieldEdit {
    public PutRows {
      Objects.requireNonNull(field);
      rows = copyOfRows(field, rows);
    }

    @Override
    public void applyTo(Map<String, Object> document) {
      document.put(field, rows);
    }

    @Override
    public long estimatedBytes() {
      return 32L + field.length() + bytesOf(rows);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> copyOfRows(String field, List<Map<String, Object>> rows) {
      List<Map<String, Object>> copy = new ArrayList<>(rows.size());
      for (Map<String, Object> row : rows) {
        Map<String, Object> values = new java.util.LinkedHashMap<>();
        row.forEach((name, value) -> {
          if (value instanceof List<?> nested) {
            values.put(name, copyOfRows(field + "." + name, (List<Map<String, Object>>) nested));
          } else if (value != null) {
            values.put(name, new Put(field + "." + name, value).value());
          }
        });
        copy.add(java.util.Collections.unmodifiableMap(values));
      }
      return List.copyOf(copy);
    }

    private static long bytesOf(Object value) {
      if (value instanceof List<?> list) {
        return 16L + list.stream().mapToLong(PutRows::bytesOf).sum();
      }
      if (value instanceof Map<?, ?> map) {
        return 48L + map.entrySet().stream()
            .mapToLong(entry -> 32L + 2L * entry.getKey().toString().length() + bytesOf(entry.getValue())).sum();
      }
      return value instanceof String text ? 2L * text.length() : 16;
    }
  }

  /**
   * Takes a field out of the document altogether (absent, not null): for a field {@link
   * dev.flowpipe.writer.store.DerivedFields} fills in from another document while it is absent, whose source the record
   * changed (a migrated instance's definition name, a migrated element's name), so the next write derives it anew.
   */
  record Remove(String field) implements FieldEdit {
    public Remove {
      Objects.requireNonNull(field);
    }

    @Override
    public void applyTo(Map<String, Object> document) {
      document.remove(field);
    }
  }

  /** Puts a key into a list of keys (once), or takes it out. */
  record KeyInList(String field, long key, boolean present) implements FieldEdit {
    @Override
    public void applyTo(Map<String, Object> document) {
      List<Long> keys = keys(document, field);
      keys.remove(Long.valueOf(key));
      if (present) {
        keys.add(key);
      }
      // a new list: the old one may belong to a version of the document a bulk is writing
      document.put(field, keys);
    }
  }

  /**
   * Adds a key, as of a log position, to a field's history ({@code "<position>:<key>"}, in position order, each once):
   * what a field of the document was at any position since, for a document derived later that must take the value as
   * of its own record (a message correlation takes the definition its instance ran at the correlation, which a later
   * migration changes). {@link #at} reads it.
   */
  record KeySince(String field, long position, long key) implements FieldEdit {
    @Override
    public void applyTo(Map<String, Object> document) {
      List<String> history = new ArrayList<>();
      if (document.get(field) instanceof List<?> stored) {
        stored.forEach(entry -> history.add(String.valueOf(entry)));
      }
      String entry = position + ":" + key;
      if (!history.contains(entry)) {
        history.add(entry);
        history.sort(Comparator.comparingLong(KeySince::positionOf));
      }
      // a new list: the old one may belong to a version of the document a bulk is writing
      document.put(field, history);
    }

    /** The key a stored history held at {@code position} (its last entry at or before it); null before the first. */
    public static Long at(Object storedHistory, long position) {
      Long found = null;
      long foundPosition = Long.MIN_VALUE;
      if (storedHistory instanceof List<?> entries) {
        for (Object entry : entries) {
          long at = positionOf(String.valueOf(entry));
          if (at <= position && at >= foundPosition) {
            foundPosition = at;
            found = Long.parseLong(String.valueOf(entry).substring(String.valueOf(entry).indexOf(':') + 1));
          }
        }
      }
      return found;
    }

    private static long positionOf(String entry) {
      return Long.parseLong(entry.substring(0, entry.indexOf(':')));
    }
  }

  /** Clears a key field if it holds this key (and leaves another key alone). */
  record ClearKeyIfEquals(String field, long key) implements FieldEdit {
    @Override
    public void applyTo(Map<String, Object> document) {
      if (document.get(field) instanceof Number stored && stored.longValue() == key) {
        document.put(field, null);
      }
    }
  }

  /** Sets a boolean flag to whether a list field holds anything. */
  record FlagNotEmpty(String flag, String listField) implements FieldEdit {
    @Override
    public void applyTo(Map<String, Object> document) {
      document.put(flag, document.get(listField) instanceof List<?> list && !list.isEmpty());
    }
  }

  /**
   * Sets the entries one source contributes to an indexed list of a process-instance document (a variable's
   * {@code name=value}, an open incident's message): the stored list ({@code <itemKey>\0<entry>}, one item per source
   * and entry) gets this source's entries in place of its earlier ones (none takes them out), and the indexed list
   * becomes the distinct entries of every source, sorted. The stored list is what makes a change exact: a record
   * carries its source's new state only, and an entry must go only when no other source holds it. Both lists sorted,
   * so a replay writes the same document.
   *
   * @param storedField the stored list of {@code <itemKey>\0<entry>}
   * @param indexedField the indexed list of distinct entries
   * @param itemKey the source, without {@code \0} (a variable's scope and name, an incident's key)
   * @param entries the source's entries now (none: it has none any more)
   */
  record KeyedEntries(String storedField, String indexedField, String itemKey, List<String> entries)
      implements FieldEdit {
    static final char SEPARATOR = '\0';

    public KeyedEntries {
      Objects.requireNonNull(storedField);
      Objects.requireNonNull(indexedField);
      if (itemKey.indexOf(SEPARATOR) >= 0) {
        throw new IllegalArgumentException("an item key holds no \\0, was " + itemKey);
      }
      entries = List.copyOf(entries);
    }

    @Override
    public void applyTo(Map<String, Object> document) {
      List<String> items = replaceItems(document, storedField, itemKey, entries);
      java.util.TreeSet<String> distinct = new java.util.TreeSet<>();
      for (String item : items) {
        distinct.add(item.substring(item.indexOf(SEPARATOR) + 1));
      }
      document.put(indexedField, List.copyOf(distinct));
    }

    @Override
    public long estimatedBytes() {
      long bytes = 64L + 2L * (storedField.length() + indexedField.length() + itemKey.length());
      for (String entry : entries) {
        bytes += 48L + 2L * entry.length();
      }
      return bytes;
    }
  }

  /**
   * Moves one element instance of a process instance from one (state, incident) to another in the instance's element
   * filter ({@code elementId}, {@code elementInstanceState}, {@code hasElementInstanceIncident}, which Camunda matches
   * on one element instance together). The instance keeps a count per element id, state and incident flag (stored:
   * {@code <elementId>|<state>|<incident>\0<count>}), so its document grows with the element ids of its process, not
   * with the element instances of a long loop; the indexed entries are every combination of the three values of each
   * count above zero ({@code ElementEntries.combinations}). Adding and taking away commute, so records of one element
   * instance that the engine writes in either order (a termination and the resolution of its incident) end in the same
   * counts.
   *
   * @param elementId the element's id
   * @param fromState the state the element instance leaves, or null (it is new)
   * @param fromIncident its incident flag before
   * @param toState the state it enters
   * @param toIncident its incident flag after
   */
  record ElementCount(String elementId, String fromState, boolean fromIncident, String toState, boolean toIncident)
      implements FieldEdit {

    public ElementCount {
      Objects.requireNonNull(elementId);
      Objects.requireNonNull(toState);
    }

    @Override
    public void applyTo(Map<String, Object> document) {
      java.util.TreeMap<String, Long> counts = new java.util.TreeMap<>();
      if (document.get(ElementEntries.STORED_FIELD) instanceof List<?> stored) {
        for (Object item : stored) {
          if (item instanceof String text && text.indexOf(KeyedEntries.SEPARATOR) > 0) {
            int at = text.indexOf(KeyedEntries.SEPARATOR);
            counts.merge(text.substring(0, at), Long.parseLong(text.substring(at + 1)), Long::sum);
          }
        }
      }
      if (fromState != null) {
        counts.merge(elementId + "|" + fromState + "|" + fromIncident, -1L, Long::sum);
      }
      counts.merge(elementId + "|" + toState + "|" + toIncident, 1L, Long::sum);
      List<String> items = new ArrayList<>();
      java.util.TreeSet<String> combinations = new java.util.TreeSet<>();
      for (Map.Entry<String, Long> count : counts.entrySet()) {
        if (count.getValue() != 0) {
          // below zero only between two records the engine wrote in the other order: kept, so the next one evens it
          items.add(count.getKey() + KeyedEntries.SEPARATOR + count.getValue());
        }
        if (count.getValue() > 0) {
          String[] parts = count.getKey().split("\\|", -1);
          combinations.addAll(ElementEntries.combinations(parts[0], parts[1], Boolean.parseBoolean(parts[2])));
        }
      }
      // new lists: the old ones may belong to a version of the document a bulk is writing
      document.put(ElementEntries.STORED_FIELD, List.copyOf(items));
      document.put(ElementEntries.FIELD, List.copyOf(combinations));
    }

    @Override
    public long estimatedBytes() {
      return 96L + 2L * elementId.length();
    }
  }

  /**
   * Puts a source's items ({@code <itemKey>\0<entry>}) into a stored list in place of its earlier ones; answers the
   * new list, sorted, which the document now holds (a new list: the old one may belong to a version of the document a
   * bulk is writing).
   */
  private static List<String> replaceItems(
      Map<String, Object> document, String storedField, String itemKey, List<String> entries) {
    String ownPrefix = itemKey + KeyedEntries.SEPARATOR;
    java.util.TreeSet<String> items = new java.util.TreeSet<>();
    if (document.get(storedField) instanceof List<?> stored) {
      for (Object item : stored) {
        if (item instanceof String text && !text.startsWith(ownPrefix)) {
          items.add(text);
        }
      }
    }
    for (String entry : entries) {
      items.add(ownPrefix + entry);
    }
    List<String> list = List.copyOf(items);
    document.put(storedField, list);
    return list;
  }

  /** The keys a document holds in a field, as a new mutable list (stored numbers come back as Integer or Long). */
  private static List<Long> keys(Map<String, Object> document, String field) {
    List<Long> keys = new ArrayList<>();
    if (document.get(field) instanceof List<?> stored) {
      for (Object key : stored) {
        if (key instanceof Number n) {
          keys.add(n.longValue());
        }
      }
    }
    return keys;
  }
}
