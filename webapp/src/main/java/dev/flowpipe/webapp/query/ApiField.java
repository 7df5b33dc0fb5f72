package dev.flowpipe.webapp.query;

import java.util.Set;

/**
 * One field of an entity as the API names it, and where the read model keeps it.
 *
 * @param name the API (Camunda REST v2) name, e.g. {@code processDefinitionId}
 * @param stored the read-model field, e.g. {@code bpmnProcessId}
 * @param type how values are written and what may be done with the field
 * @param allowed for closed sets of strings (states, types), the values a filter may name; else empty
 */
public record ApiField(String name, String stored, FieldType type, Set<String> allowed) {

  public static ApiField of(String name, String stored, FieldType type) {
    return new ApiField(name, stored, type, Set.of());
  }

  public static ApiField oneOf(String name, String stored, String... values) {
    return new ApiField(name, stored, FieldType.STRING, Set.of(values));
  }
}
