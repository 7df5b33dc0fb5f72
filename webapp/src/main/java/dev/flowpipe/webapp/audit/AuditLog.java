package dev.flowpipe.webapp.audit;

/**
 * Where every user operation is recorded once: the one hook the single-instance operations and the batches call
 * (a batch once, when it starts). {@link StoredAuditLog} keeps the entries as documents beside the read model.
 */
public interface AuditLog {

  /** Records nothing (a web app without a store, tests of other things). */
  AuditLog NONE = (operation, user, errorMessage) -> {};

  /**
   * Records that {@code user} carried out the operation ({@code errorMessage} null) or tried and was refused
   * ({@code errorMessage} says why).
   */
  void record(AuditedOperation operation, String user, String errorMessage);
}
