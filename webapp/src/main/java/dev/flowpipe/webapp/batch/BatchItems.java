package dev.flowpipe.webapp.batch;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.webapp.api.SearchAnswer;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.batch.BatchOperations.Type;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.query.Entity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The items a new batch's filter gives, by its type, as the v2 API narrows each (a cancellation takes active root
 * instances, a deletion finished ones...): read page after page from the read model, refused beyond {@code maxItems}
 * before anything is stored.
 */
final class BatchItems {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PAGE = 100;

  private final SearchService search;
  private final int maxItems;

  BatchItems(SearchService search, int maxItems) {
    this.search = search;
    this.maxItems = maxItems;
  }

  /** The items of batch {@code key}, each {@code ACTIVE}, in the store's shape. */
  List<Map<String, Object>> find(String key, Type type, ObjectNode filter) {
    return switch (type) {
      case CANCEL_PROCESS_INSTANCE -> cancellations(key, filter);
      case RESOLVE_INCIDENT -> resolutions(key, filter);
      case MIGRATE_PROCESS_INSTANCE, MODIFY_PROCESS_INSTANCE -> activeInstances(key, type, filter);
      case DELETE_PROCESS_INSTANCE -> deletions(key, filter);
    };
  }

  /** Only active root instances can be cancelled: the filter's state and parent are overridden, as in the v2 API. */
  private List<Map<String, Object>> cancellations(String key, ObjectNode filter) {
    ObjectNode instances = filter.deepCopy();
    instances.put("state", "ACTIVE");
    instances.set("parentProcessInstanceKey", JSON.createObjectNode().put("$exists", false));
    List<Map<String, Object>> items = new ArrayList<>();
    forEachMatch(Entity.PROCESS_INSTANCES, instances, instance -> items.add(item(key, Type.CANCEL_PROCESS_INSTANCE,
        instance.get("processInstanceKey"), instance.get("processInstanceKey"))));
    return items;
  }

  /** The active instances the filter matches (its state overridden): a migration's or modification's items. */
  private List<Map<String, Object>> activeInstances(String key, Type type, ObjectNode filter) {
    ObjectNode instances = filter.deepCopy();
    instances.put("state", "ACTIVE");
    List<Map<String, Object>> items = new ArrayList<>();
    forEachMatch(Entity.PROCESS_INSTANCES, instances, instance -> items.add(item(key, type,
        instance.get("processInstanceKey"), instance.get("processInstanceKey"))));
    return items;
  }

  /**
   * Finished instances (COMPLETED or TERMINATED, unless the filter names a state: an active one named is a FAILED item,
   * as the single deletion's 409); a child instance is an instance of its own here, as in 8.9.
   */
  private List<Map<String, Object>> deletions(String key, ObjectNode filter) {
    ObjectNode instances = filter.deepCopy();
    if (!instances.hasNonNull("state")) {
      instances.set("state", JSON.createObjectNode().set("$in", JSON.createArrayNode().add("COMPLETED")
          .add("TERMINATED")));
    }
    List<Map<String, Object>> items = new ArrayList<>();
    forEachMatch(Entity.PROCESS_INSTANCES, instances, instance -> items.add(item(key, Type.DELETE_PROCESS_INSTANCE,
        instance.get("processInstanceKey"), instance.get("processInstanceKey"))));
    return items;
  }

  private List<Map<String, Object>> resolutions(String key, ObjectNode filter) {
    ObjectNode instances = filter.deepCopy();
    instances.put("state", "ACTIVE");
    instances.put("hasIncident", true);
    List<Object> instanceKeys = new ArrayList<>();
    forEachMatch(Entity.PROCESS_INSTANCES, instances, instance -> instanceKeys.add(instance.get("processInstanceKey")));
    List<Map<String, Object>> items = new ArrayList<>();
    for (int from = 0; from < instanceKeys.size(); from += PAGE) {
      ObjectNode incidentFilter = JSON.createObjectNode().put("state", "ACTIVE");
      incidentFilter.set("processInstanceKey", JSON.createObjectNode().set("$in",
          JSON.valueToTree(instanceKeys.subList(from, Math.min(instanceKeys.size(), from + PAGE)))));
      forEachMatch(Entity.INCIDENTS, incidentFilter, incident -> items.add(item(key, Type.RESOLVE_INCIDENT,
          incident.get("incidentKey"), incident.get("processInstanceKey"))));
    }
    return items;
  }

  /** Every item a search finds, page after page; more than {@code maxItems} is refused before anything is stored. */
  private void forEachMatch(Entity entity, ObjectNode filter, Consumer<Map<String, Object>> each) {
    String after = null;
    long seen = 0;
    while (true) {
      ObjectNode request = JSON.createObjectNode();
      request.set("filter", filter);
      ObjectNode page = request.putObject("page").put("limit", 1000);
      if (after != null) {
        page.put("after", after);
      }
      SearchAnswer answer = search.search(entity, request);
      for (Map<String, Object> item : answer.items()) {
        if (++seen > maxItems) {
          throw new BadRequestException("filter", "matches more than " + maxItems + " items (flowpipe.webapp"
              + ".operations.batch-max-items); narrow it");
        }
        each.accept(item);
      }
      if (answer.items().isEmpty() || answer.page().endCursor() == null) {
        return;
      }
      after = answer.page().endCursor();
    }
  }

  private static Map<String, Object> item(String batchKey, Type type, Object itemKey, Object processInstanceKey) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put(BatchOperationStore.KIND, "item");
    item.put("batchOperationKey", batchKey);
    item.put("operationType", type.name());
    item.put("itemKey", String.valueOf(itemKey));
    item.put("processInstanceKey", String.valueOf(processInstanceKey));
    item.put("state", "ACTIVE");
    item.put("processedDate", null);
    item.put("errorMessage", null);
    return item;
  }
}
