package dev.flowpipe.webapp.batch;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.query.Entity;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * Whether a batch item was done already: its instance cancelled, its incident resolved, migrated to the target, or its
 * planned element instances terminated. The engine answers "not found" alike for a key it never knew and for one that
 * ended, and a batch taken up after a stop sends again what was in flight at the stop, which the engine may have
 * carried out before it stopped: that item is done, not skipped (and a migration or modification must not be sent
 * twice). The read model tells which, once it holds the key's partition up to the log's end now (a read that waits for
 * that position, where this process knows it; else what the read model holds already).
 */
public final class ItemAlreadyDone {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final SearchService search;
  private final WrittenPositions positions;
  private final Duration wait;

  public ItemAlreadyDone(SearchService search, WrittenPositions positions, Duration wait) {
    this.search = search;
    this.positions = positions;
    this.wait = wait;
  }

  /** True where the read model shows the item's instance cancelled or its incident resolved. */
  public boolean test(BatchOperations.Type type, long itemKey) {
    ObjectNode filter = JSON.createObjectNode();
    if (type == BatchOperations.Type.CANCEL_PROCESS_INSTANCE) {
      filter.put("processInstanceKey", Long.toString(itemKey)).put("state", "TERMINATED");
      return count(Entity.PROCESS_INSTANCES, filter, itemKey) > 0;
    }
    filter.put("incidentKey", Long.toString(itemKey)).put("state", "RESOLVED");
    return count(Entity.INCIDENTS, filter, itemKey) > 0;
  }

  /** True where the read model shows the instance on the target definition. */
  boolean migrated(long processInstanceKey, long targetProcessDefinitionKey) {
    ObjectNode filter = JSON.createObjectNode().put("processInstanceKey", Long.toString(processInstanceKey))
        .put("processDefinitionKey", Long.toString(targetProcessDefinitionKey));
    return count(Entity.PROCESS_INSTANCES, filter, processInstanceKey) > 0;
  }

  /** True where the read model shows every one of these element instances of the instance terminated. */
  boolean terminated(long processInstanceKey, List<Long> elementInstanceKeys) {
    ObjectNode filter = JSON.createObjectNode().put("processInstanceKey", Long.toString(processInstanceKey))
        .put("state", "TERMINATED");
    filter.putObject("elementInstanceKey").set("$in",
        JSON.valueToTree(elementInstanceKeys.stream().map(String::valueOf).toList()));
    return count(Entity.ELEMENT_INSTANCES, filter, processInstanceKey) == elementInstanceKeys.size();
  }

  /** The keys of the instance's active element instances of one element, as the log's end now has them. */
  List<Long> activeElementInstances(long processInstanceKey, String elementId) {
    ObjectNode filter = JSON.createObjectNode().put("processInstanceKey", Long.toString(processInstanceKey))
        .put("elementId", elementId).put("state", "ACTIVE");
    ObjectNode request = request(filter, processInstanceKey, 1000);
    return search.search(Entity.ELEMENT_INSTANCES, request).items().stream()
        .map(item -> Long.parseLong(String.valueOf(item.get("elementInstanceKey")))).toList();
  }

  private long count(Entity entity, ObjectNode filter, long keyOnPartition) {
    return search.search(entity, request(filter, keyOnPartition, 0)).page().totalItems();
  }

  /** A search that waits for the read model to hold the key's partition up to the log's end, where that is known. */
  private ObjectNode request(ObjectNode filter, long keyOnPartition, int limit) {
    ObjectNode request = JSON.createObjectNode();
    request.set("filter", filter);
    request.putObject("page").put("limit", limit);
    int partition = WrittenPositions.partitionOf(keyOnPartition);
    OptionalLong logEnd = positions.lastWritten(partition);
    if (logEnd.isPresent()) {
      ObjectNode consistency = request.putObject("consistency").put("timeout", wait.toMillis() + "ms");
      consistency.putArray("positions").addObject().put("partitionId", partition)
          .put("position", logEnd.getAsLong());
    }
    return request;
  }
}
