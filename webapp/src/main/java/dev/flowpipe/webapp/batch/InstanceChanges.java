package dev.flowpipe.webapp.batch;

import dev.flowpipe.webapp.operations.EngineCommands;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One item of a batch migration or modification, sent to the engine at most once however often the batch stops and is
 * taken up. Before the command goes out, the item is stored with {@code sentAt} and, for a modification, the element
 * instances it terminates ({@code terminate}, read from the read model at the log's end): an item found with
 * {@code sentAt} was in flight at a stop, and is sent again only where the read model, once it holds the log up to its
 * end, shows it not done (the instance not on the target definition; the planned element instances not terminated),
 * and then as it was planned.
 * Zeebe 8.6 refuses a modification whose element instances are no longer active, so a command sent again after all
 * cannot act twice.
 */
final class InstanceChanges {

  /** What became of an item here: the command was sent, it was found done already, or there was nothing to do. */
  enum Outcome { SENT, COMPLETED, SKIPPED }

  private final EngineCommands engine;
  private final ItemAlreadyDone alreadyDone;
  private final BatchOperationStore store;
  private final Clock clock;

  InstanceChanges(EngineCommands engine, ItemAlreadyDone alreadyDone, BatchOperationStore store, Clock clock) {
    this.engine = engine;
    this.alreadyDone = alreadyDone;
    this.store = store;
    this.clock = clock;
  }

  boolean handles(BatchOperations.Type type) {
    return type == BatchOperations.Type.MIGRATE_PROCESS_INSTANCE || type == BatchOperations.Type.MODIFY_PROCESS_INSTANCE;
  }

  /** Sends the item's command unless it was done; the engine's refusal is thrown as it comes. */
  Outcome carryOut(BatchOperations.Type type, Map<String, Object> plan, Map<String, Object> item) {
    long instance = Long.parseLong((String) item.get("processInstanceKey"));
    boolean sentBefore = item.get("sentAt") != null;
    if (type == BatchOperations.Type.MIGRATE_PROCESS_INSTANCE) {
      EngineCommands.Migration migration = InstanceChangePlan.migration(plan);
      if (sentBefore && alreadyDone.migrated(instance, migration.targetProcessDefinitionKey())) {
        return Outcome.COMPLETED;
      }
      markSent(item);
      engine.migrateProcessInstance(instance, migration);
      return Outcome.SENT;
    }
    if (sentBefore) {
      // the same command as planned: the stored terminations and activations
      List<Long> terminate = ((List<?>) item.get("terminate")).stream()
          .map(key -> Long.parseLong(String.valueOf(key))).toList();
      if (alreadyDone.terminated(instance, terminate)) {
        return Outcome.COMPLETED;
      }
      List<EngineCommands.Activation> activations = ((List<?>) item.get("activate")).stream()
          .map(elementId -> new EngineCommands.Activation(String.valueOf(elementId), -1, List.of())).toList();
      engine.modifyProcessInstance(instance, new EngineCommands.Modification(activations, terminate));
      return Outcome.SENT;
    }
    List<Long> terminate = new ArrayList<>();
    List<String> activate = new ArrayList<>();
    for (InstanceChangePlan.Move move : InstanceChangePlan.moves(plan)) {
      List<Long> active = alreadyDone.activeElementInstances(instance, move.sourceElementId());
      if (!active.isEmpty()) {
        terminate.addAll(active);
        activate.add(move.targetElementId());
      }
    }
    if (terminate.isEmpty()) {
      return Outcome.SKIPPED;
    }
    item.put("terminate", terminate.stream().map(String::valueOf).toList());
    item.put("activate", activate);
    markSent(item);
    engine.modifyProcessInstance(instance, new EngineCommands.Modification(
        activate.stream().map(elementId -> new EngineCommands.Activation(elementId, -1, List.of())).toList(),
        terminate));
    return Outcome.SENT;
  }

  private void markSent(Map<String, Object> item) {
    item.put("sentAt", clock.instant().toString());
    store.putItem(item);
  }
}
