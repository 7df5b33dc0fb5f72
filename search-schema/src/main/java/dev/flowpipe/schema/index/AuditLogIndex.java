package dev.flowpipe.schema.index;

/**
 * The audit log beside the read model (issue 35): one document per user operation, written by the web app, named and
 * mapped here so that the web app and the retention sweep that deletes old entries agree. Values of variables are never
 * held: their names only.
 */
public final class AuditLogIndex {

  /** Its settings and mappings: one shard, a replica only where a second store node can hold it (as the batches). */
  public static final String BODY = """
      {"settings": {"index": {"number_of_shards": 1, "auto_expand_replicas": "0-1"}},
       "mappings": {"dynamic": "strict", "properties": {
        "auditLogKey": {"type": "keyword"}, "entityKey": {"type": "keyword"}, "entityType": {"type": "keyword"},
        "operationType": {"type": "keyword"}, "category": {"type": "keyword"}, "actorId": {"type": "keyword"},
        "actorType": {"type": "keyword"}, "timestamp": {"type": "date"}, "result": {"type": "keyword"},
        "processInstanceKey": {"type": "keyword"}, "processDefinitionKey": {"type": "keyword"},
        "elementInstanceKey": {"type": "keyword"}, "jobKey": {"type": "keyword"}, "incidentKey": {"type": "keyword"},
        "batchOperationKey": {"type": "keyword"}, "batchOperationType": {"type": "keyword"},
        "details": {"type": "object", "enabled": false}, "errorMessage": {"type": "text", "index": false}}}}
      """;

  private AuditLogIndex() {}

  /** {@code <prefix>-audit-log-v1}. */
  public static String name(String prefix) {
    return prefix + "-audit-log-v1";
  }
}
