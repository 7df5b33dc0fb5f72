package dev.flowpipe.webapp.batch;

import dev.flowpipe.webapp.batch.BatchOperations.Type;
import dev.flowpipe.webapp.operations.EngineCommandException;
import dev.flowpipe.webapp.operations.EngineCommands;
import dev.flowpipe.webapp.operations.IncidentResolution;
import dev.flowpipe.webapp.operations.InstanceDeletion;
import dev.flowpipe.webapp.operations.OperationAudit;
import java.time.Clock;
import java.util.Map;

/**
 * One batch item's command by the batch's type (cancel, resolve, migrate, modify, delete), and its outcome stored:
 * an engine that does not answer leaves the item to be sent again; one that finds nothing to act on tells a command
 * done before a stop (the read model at the log's end, or a deletion's tombstone) from one that had nothing to do.
 */
final class BatchItemCommands {

  private final EngineCommands engine;
  private final IncidentResolution incidents;
  private final InstanceDeletion deletion;
  private final ItemAlreadyDone alreadyDone;
  private final InstanceChanges changes;
  private final BatchOperationStore store;
  private final Clock clock;

  BatchItemCommands(EngineCommands engine, IncidentResolution incidents, InstanceDeletion deletion,
      ItemAlreadyDone alreadyDone, InstanceChanges changes, BatchOperationStore store, Clock clock) {
    this.engine = engine;
    this.incidents = incidents;
    this.deletion = deletion;
    this.alreadyDone = alreadyDone;
    this.changes = changes;
    this.store = store;
    this.clock = clock;
  }

  /** Sends the item's command and stores its outcome: true where it is done, false where it stays to be sent again. */
  boolean carryOut(Type type, Map<String, Object> plan, Map<String, Object> item, String user) {
    long itemKey = Long.parseLong((String) item.get("itemKey"));
    String state;
    String error = null;
    try {
      switch (type) {
        case CANCEL_PROCESS_INSTANCE -> engine.cancelProcessInstance(itemKey);
        case RESOLVE_INCIDENT -> incidents.resolve(itemKey);
        case MIGRATE_PROCESS_INSTANCE, MODIFY_PROCESS_INSTANCE -> {
          InstanceChanges.Outcome outcome = changes.carryOut(type, plan, item);
          if (outcome != InstanceChanges.Outcome.SENT) {
            return stored(type, item, user, outcome.name(), outcome == InstanceChanges.Outcome.SKIPPED
                ? "no active element instance of the move instructions' source elements" : null);
          }
        }
        case DELETE_PROCESS_INSTANCE -> deletion.delete(itemKey, user);
      }
      state = "COMPLETED";
    } catch (EngineCommandException e) {
      switch (e.kind()) {
        case UNAVAILABLE, TIMED_OUT -> {
          OperationAudit.logItem(user, type.name(), (String) item.get("itemKey"), "sent again later: " + e.getMessage());
          return false;
        }
        case NOT_FOUND -> {
          // a deletion sent again after a stop finds its instance gone: done where the tombstone holds it
          boolean done = type == Type.DELETE_PROCESS_INSTANCE ? deletion.deleted(itemKey)
              : !changes.handles(type) && alreadyDone.test(type, itemKey);
          state = done ? "COMPLETED" : "SKIPPED";
          error = "COMPLETED".equals(state) ? null : e.getMessage();
        }
        default -> {
          state = "FAILED";
          error = e.getMessage();
        }
      }
    }
    return stored(type, item, user, state, error);
  }

  /** Stores an item's outcome and logs it; true (it is done). */
  private boolean stored(Type type, Map<String, Object> item, String user, String state, String error) {
    item.put("state", state);
    item.put("processedDate", clock.instant().toString());
    item.put("errorMessage", error);
    store.putItem(item);
    OperationAudit.logItem(user, type.name(), (String) item.get("itemKey"),
        state + (error == null ? "" : ": " + error));
    return true;
  }
}
