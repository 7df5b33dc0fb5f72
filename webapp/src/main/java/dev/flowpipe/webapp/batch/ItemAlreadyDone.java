package dev.flowpipe.webapp.batch;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.query.Entity;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * Whether a batch item the engine answered "not found" for was done already: its instance cancelled, its incident
 * resolved. The engine answers so alike for a key it never knew and for one that ended, and a batch taken up after a
 * stop sends again what was in flight at the stop, which the engine may have carried out before it stopped: that item
 * is done, not skipped. The read model tells which, once it holds the key's partition up to the log's end now (a read
 * that waits for that position, where this process knows it; else what the read model holds already).
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
    ObjectNode request = JSON.createObjectNode();
    ObjectNode filter = request.putObject("filter");
    Entity entity;
    if (type == BatchOperations.Type.CANCEL_PROCESS_INSTANCE) {
      entity = Entity.PROCESS_INSTANCES;
      filter.put("processInstanceKey", Long.toString(itemKey)).put("state", "TERMINATED");
    } else {
      entity = Entity.INCIDENTS;
      filter.put("incidentKey", Long.toString(itemKey)).put("state", "RESOLVED");
    }
    request.putObject("page").put("limit", 0);
    int partition = WrittenPositions.partitionOf(itemKey);
    OptionalLong logEnd = positions.lastWritten(partition);
    if (logEnd.isPresent()) {
      ObjectNode consistency = request.putObject("consistency").put("timeout", wait.toMillis() + "ms");
      consistency.putArray("positions").addObject().put("partitionId", partition)
          .put("position", logEnd.getAsLong());
    }
    return search.search(entity, request).page().totalItems() > 0;
  }
}
