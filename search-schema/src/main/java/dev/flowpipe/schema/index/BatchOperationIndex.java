package dev.flowpipe.schema.index;

/**
 * The index of batch operations beside the read model (the web app's batches, their items and leases): named and
 * mapped here so that the web app that writes it and the retention sweep that prunes it agree.
 */
public final class BatchOperationIndex {

  /**
   * Its settings and mappings (the batch, item and lease documents' fields). One shard, and a replica only where a
   * second store node can hold it: OpenSearch's default of one replica left a single-node store yellow for good, and
   * the embedded store waited out its green timeout at every restart.
   */
  public static final String BODY = """
      {"settings": {"index": {"number_of_shards": 1, "auto_expand_replicas": "0-1"}},
       "mappings": {"properties": {
        "kind": {"type": "keyword"}, "batchOperationKey": {"type": "keyword"}, "batchOperationType": {"type": "keyword"},
        "state": {"type": "keyword"}, "itemKey": {"type": "keyword"}, "processInstanceKey": {"type": "keyword"},
        "startDate": {"type": "date"}, "endDate": {"type": "date"}, "processedDate": {"type": "date"},
        "errorMessage": {"type": "text", "index": false}, "user": {"type": "keyword"},
        "filter": {"type": "object", "enabled": false}, "plan": {"type": "object", "enabled": false},
        "operationType": {"type": "keyword"}, "position": {"type": "long"}, "settled": {"type": "boolean"},
        "sentAt": {"type": "date"}, "terminate": {"type": "keyword"}, "activate": {"type": "keyword"}}}}
      """;

  private BatchOperationIndex() {}

  /** {@code <prefix>-batch-operation-v1}. */
  public static String name(String prefix) {
    return prefix + "-batch-operation-v1";
  }
}
