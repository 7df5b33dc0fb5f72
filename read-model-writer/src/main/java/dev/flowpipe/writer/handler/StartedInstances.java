package dev.flowpipe.writer.handler;

/**
 * Where the call hierarchy is learned as instances start (the writer's {@link dev.flowpipe.writer.store.DerivedFields},
 * which gives every document of an instance its root).
 */
public interface StartedInstances {

  /** Learns that an instance started, called by {@code parentInstanceKey} (not positive: by none, its own root). */
  void started(long instanceKey, long parentInstanceKey);

  /**
   * Learns that an instance runs {@code definitionKey} from {@code position} on (its start, or a migration), for the
   * documents that take the definition an instance ran at their own position (message correlations).
   */
  void runs(long instanceKey, long position, long definitionKey);
}
