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
