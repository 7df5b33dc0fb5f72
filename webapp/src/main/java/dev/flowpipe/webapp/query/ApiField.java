package dev.flowpipe.webapp.query;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * One field of an entity as the API names it, and where the read model keeps it.
 *
 * @param name the API (Camunda REST v2) name, e.g. {@code processDefinitionId}
 * @param stored the read-model field answers are read from, e.g. {@code bpmnProcessId}
 * @param type how values are written and what may be done with the field
 * @param vocabulary for closed sets of strings (states, types), the API's names and their stored values; else null
 * @param searched the indexed field filters match on: {@code stored}, or e.g. the keyword sub-field of a text field
 * @param sortedBy the indexed field sorts order by: {@code searched}, or one that sorts in the API's order
 * @param sortType the type of {@code sortedBy}'s values (what a cursor holds for this field)
 */
public record ApiField(
    String name, String stored, FieldType type, Vocabulary vocabulary, String searched, String sortedBy,
    FieldType sortType) {

  public static ApiField of(String name, String stored, FieldType type) {
    return new ApiField(name, stored, type, null, stored, stored, type);
  }

  public static ApiField oneOf(String name, String stored, Vocabulary vocabulary) {
    return new ApiField(name, stored, FieldType.STRING, vocabulary, stored, stored, FieldType.STRING);
  }

  /** This field filtered and sorted on another indexed field (a text field's exact keyword sub-field). */
  public ApiField searchedAs(String field) {
    return new ApiField(name, stored, type, vocabulary, field, field, type);
  }

  /** This field sorted on another indexed field of another type (a state by its place in the API's enum). */
  public ApiField sortedBy(String field, FieldType typeOfField) {
    return new ApiField(name, stored, type, vocabulary, searched, field, typeOfField);
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
