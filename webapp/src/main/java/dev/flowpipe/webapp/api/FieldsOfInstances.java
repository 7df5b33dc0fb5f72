package dev.flowpipe.webapp.api;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.webapp.query.Entity;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Fields an answer takes from the process instance of its items, read from the instance documents of the page (one
 * multi-get per page): a variable's {@code rootProcessInstanceKey} (8.9) and a message subscription's
 * {@code processDefinitionKey}. Zeebe 8.6's variable and subscription records carry neither.
 *
 * <p>Why at read time and not in the writer: a creation command's or a call's variables come before their instance's
 * start in the log, so a writer restarted between the two has no exact source for the root, and a variable is rarely
 * written again (engine-broker's replay tests showed it). The instance document always holds its root and current
 * definition, so the answer is exact under any replay. An open subscription follows its instance through a migration
 * (Zeebe migrates it with its element); a closed one of an instance migrated later answers the instance's new
 * definition. Neither field is offered as a filter or sort here (the spec offers none on these two entities).
 */
public final class FieldsOfInstances {

  /** Per entity: the answer's field and the instance document's field it reads. */
  private static final Map<Entity, Map.Entry<String, String>> JOINED = Map.of(
      Entity.VARIABLES, Map.entry("rootProcessInstanceKey", "rootProcessInstanceKey"),
      Entity.MESSAGE_SUBSCRIPTIONS, Map.entry("processDefinitionKey", "processDefinitionKey"));

  private final ReadModel readModel;

  FieldsOfInstances(ReadModel readModel) {
    this.readModel = readModel;
  }

  /** The field {@code entity}'s answers take from the instance documents, if any (the OpenAPI document names it). */
  public static Optional<String> answerField(Entity entity) {
    return Optional.ofNullable(JOINED.get(entity)).map(Map.Entry::getKey);
  }

  /** Puts the joined field in each item of {@code entity}'s answer (null where its instance is not in the read model). */
  void add(Entity entity, List<Map<String, Object>> items) {
    Map.Entry<String, String> joined = JOINED.get(entity);
    if (joined == null || items.isEmpty()) {
      return;
    }
    Set<String> instanceKeys = new LinkedHashSet<>();
    for (Map<String, Object> item : items) {
      if (item.get("processInstanceKey") != null) {
        instanceKeys.add(item.get("processInstanceKey").toString());
      }
    }
    Map<String, Map<String, Object>> instances = instanceKeys.isEmpty() ? Map.of()
        : readModel.store().getAll(readModel.index(ReadModelIndex.PROCESS_INSTANCE), List.copyOf(instanceKeys));
    for (Map<String, Object> item : items) {
      Object value = instances.getOrDefault(String.valueOf(item.get("processInstanceKey")), Map.of())
          .get(joined.getValue());
      // keys as strings, as every key of the v2 answers
      item.put(joined.getKey(), value == null ? null : String.valueOf(value));
    }
  }
}
