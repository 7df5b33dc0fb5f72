package dev.flowpipe.webapp.query;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * One field of an entity as the API names it, and where the read model keeps it.
 *
 * @param name the API (Camunda REST v2) name, e.g. {@code processDefinitionId}
 * @param stored the read-model field, e.g. {@code bpmnProcessId}
 * @param type how values are written and what may be done with the field
 * @param vocabulary for closed sets of strings (states, types), the API's names and their stored values; else null
 */
public record ApiField(String name, String stored, FieldType type, Vocabulary vocabulary) {

  public static ApiField of(String name, String stored, FieldType type) {
    return new ApiField(name, stored, type, null);
  }

  public static ApiField oneOf(String name, String stored, Vocabulary vocabulary) {
    return new ApiField(name, stored, FieldType.STRING, vocabulary);
  }

  /**
   * The stored values a JSON filter value stands for: one, or for a name of a vocabulary, those it stands for (maybe
   * none).
   *
   * @throws IllegalArgumentException saying what was expected
   */
  public List<Object> storedValues(JsonNode value) {
    if (vocabulary == null) {
      return List.of(type.storedValue(value));
    }
    if (!value.isTextual()) {
      throw new IllegalArgumentException("expected a string, was " + value);
    }
    return List.copyOf(vocabulary.stored(value.asText()));
  }

  /** The value to answer for a stored value (null when the document has none). */
  public Object answered(Object storedValue) {
    if (type == FieldType.PRESENCE) {
      return storedValue != null;
    }
    if (vocabulary != null && storedValue instanceof String text) {
      return vocabulary.name(text);
    }
    // keys as strings, as Camunda's v2 API writes them: 64-bit values do not survive JavaScript numbers
    return type == FieldType.KEY ? String.valueOf(storedValue) : storedValue;
  }
}
