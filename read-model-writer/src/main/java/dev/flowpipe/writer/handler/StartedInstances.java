package dev.flowpipe.writer.handler;

/**
 * Where the call hierarchy is learned as instances start (the writer's {@link dev.flowpipe.writer.store.DerivedFields},
 * which gives every document of an instance its root).
 */
public interface StartedInstances {

  /** Learns that an instance started, called by {@code parentInstanceKey} (not positive: by none, its own root). */
  void started(long instanceKey, long parentInstanceKey);
}
