package dev.flowpipe.writer.handler;

import java.util.ArrayList;
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
   * Sets the variable filter's entry of one variable (one name in one scope) on a process-instance document: the
   * scoped list ({@code <scopeKey>:<entry>}, one per variable) gets this variable's entry in place of its earlier one,
   * and the indexed list becomes the distinct entries of all of them, sorted. The scoped list is what makes an update
   * exact: the record of an update carries the new value only, and the old entry must go unless another scope holds
   * it too. Both lists are sorted, so a replay writes the same document.
   *
   * @param scopedField the stored list of {@code <scopeKey>:<entry>}
   * @param indexedField the indexed list of distinct entries
   * @param scopeKey the variable's scope
   * @param namePrefix what every entry of this variable's name starts with (the escaped name and {@code =})
   * @param entry this variable's entry now
   */
  record ScopedEntry(String scopedField, String indexedField, long scopeKey, String namePrefix, String entry)
      implements FieldEdit {
    public ScopedEntry {
      Objects.requireNonNull(scopedField);
      Objects.requireNonNull(indexedField);
      Objects.requireNonNull(namePrefix);
      Objects.requireNonNull(entry);
    }

    @Override
    public void applyTo(Map<String, Object> document) {
      String variable = scopeKey + ":" + namePrefix;
      java.util.TreeSet<String> scoped = new java.util.TreeSet<>();
      if (document.get(scopedField) instanceof List<?> stored) {
        for (Object item : stored) {
          if (item instanceof String text && !text.startsWith(variable)) {
            scoped.add(text);
          }
        }
      }
      scoped.add(scopeKey + ":" + entry);
      java.util.TreeSet<String> entries = new java.util.TreeSet<>();
      for (String item : scoped) {
        entries.add(item.substring(item.indexOf(':') + 1));
      }
      // new lists: the old ones may belong to a version of the document a bulk is writing
      document.put(scopedField, List.copyOf(scoped));
      document.put(indexedField, List.copyOf(entries));
    }

    @Override
    public long estimatedBytes() {
      return 64L + 2L * (scopedField.length() + indexedField.length() + namePrefix.length() + entry.length());
    }
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
