package dev.flowpipe.webapp.audit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a user operation did, as the audit log records it (the 8.9 names): the operation's type ({@code CANCEL},
 * {@code MODIFY}, {@code MIGRATE}, {@code DELETE}, {@code RESOLVE}, {@code UPDATE}, {@code CREATE}), the kind of entity
 * and its key, the process instance where there is one, a batch's key and type, and details (for a modification the
 * elements activated and terminated; for variables their names, never their values).
 */
public record AuditedOperation(String operationType, String entityType, String entityKey, String processInstanceKey,
    String batchOperationKey, String batchOperationType, Map<String, Object> details) {

  public AuditedOperation {
    details = details == null ? Map.of() : Map.copyOf(details);
  }

  /** An operation on one process instance. */
  public static AuditedOperation onInstance(String operationType, long processInstanceKey) {
    String key = Long.toString(processInstanceKey);
    return new AuditedOperation(operationType, "PROCESS_INSTANCE", key, key, null, null, Map.of());
  }

  /** An operation on another entity of this kind. */
  public static AuditedOperation on(String operationType, String entityType, Object entityKey) {
    return new AuditedOperation(operationType, entityType, entityKey == null ? null : entityKey.toString(), null,
        null, null, Map.of());
  }

  /** The start of a batch operation of this type. */
  public static AuditedOperation batch(String batchOperationType, Object batchOperationKey) {
    String key = batchOperationKey == null ? null : batchOperationKey.toString();
    return new AuditedOperation("CREATE", "BATCH", key, null, key, batchOperationType, Map.of());
  }

  public AuditedOperation withDetail(String name, Object value) {
    Map<String, Object> more = new LinkedHashMap<>(details);
    more.put(name, value);
    return new AuditedOperation(operationType, entityType, entityKey, processInstanceKey, batchOperationKey,
        batchOperationType, more);
  }

  public AuditedOperation withEntityKey(Object key) {
    return new AuditedOperation(operationType, entityType, key == null ? null : key.toString(),
        "PROCESS_INSTANCE".equals(entityType) && key != null ? key.toString() : processInstanceKey, batchOperationKey,
        batchOperationType, details);
  }

  /** The process instance the entity belongs to (null: not known), so the instance's trail lists the operation. */
  public AuditedOperation withProcessInstanceKey(String key) {
    return new AuditedOperation(operationType, entityType, entityKey, key, batchOperationKey, batchOperationType,
        details);
  }

  public AuditedOperation withBatchKey(Object key) {
    return new AuditedOperation(operationType, entityType, key == null ? entityKey : key.toString(), processInstanceKey,
        key == null ? null : key.toString(), batchOperationType, details);
  }
}
