package dev.flowpipe.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The audit log after batches that crossed node stops, read through {@code POST /v2/audit-logs/search}: each batch is
 * one operation and must have exactly one entry (its creation, by the user who asked for it, a success), however
 * often its node stopped and took it up again; the log holds nothing else, so no item and no take-up wrote an entry of
 * its own.
 */
final class BatchAuditEntries {

  private BatchAuditEntries() {}

  /**
   * What is wrong with the audit log, given every batch of the run (key to batch type) and who started them; empty
   * where each batch has its one entry and the log nothing more.
   */
  static List<String> violations(WebApiAs reader, Map<String, String> batches, String user) throws Exception {
    List<String> violations = new ArrayList<>();
    for (Map.Entry<String, String> batch : batches.entrySet()) {
      JsonNode found = reader.search("audit-logs", "{\"filter\": {\"batchOperationKey\": \"" + batch.getKey()
          + "\"}, \"page\": {\"limit\": 10}}");
      JsonNode items = found.path("items");
      if (found.path("page").path("totalItems").asLong() != 1) {
        violations.add("batch " + batch.getKey() + ": " + found.path("page").path("totalItems").asLong()
            + " audit entries, expected 1: " + items);
        continue;
      }
      JsonNode entry = items.path(0);
      if (!"CREATE".equals(entry.path("operationType").asText()) || !"BATCH".equals(entry.path("entityType").asText())
          || !batch.getValue().equals(entry.path("batchOperationType").asText())
          || !user.equals(entry.path("actorId").asText()) || !"SUCCESS".equals(entry.path("result").asText())) {
        violations.add("batch " + batch.getKey() + ": audit entry " + entry + " is not the " + batch.getValue()
            + " batch's creation by " + user + ", a success");
      }
    }
    long all = reader.search("audit-logs", "{\"page\": {\"limit\": 0}}").path("page").path("totalItems").asLong();
    if (all != batches.size()) {
      violations.add(all + " audit entries in all, expected one per batch: " + batches.size());
    }
    return violations;
  }
}
