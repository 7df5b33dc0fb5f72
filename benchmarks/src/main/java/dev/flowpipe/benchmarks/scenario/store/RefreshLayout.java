package dev.flowpipe.benchmarks.scenario.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What the read model's index layout costs the store when every bulk refreshes: the same paced bulks of one-task
 * instances (7 documents each: instance, three element instances, two variables, a job) written either to one index
 * per entity (the layout of schema version 1) or to the shared read-model index through its entity aliases (version
 * 2). Phases alternate in one store, so drift and JIT warm-up fall on both layouts alike.
 */
public final class RefreshLayout {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<ReadModelIndex> WRITTEN =
      List.of(ReadModelIndex.PROCESS_INSTANCE, ReadModelIndex.FLOW_NODE_INSTANCE, ReadModelIndex.VARIABLE,
          ReadModelIndex.JOB);

  public enum Layout {
    PER_ENTITY, SHARED
  }

  public record Phase(Layout layout, int round, long bulks, long documents, double seconds, double storeCores,
      double meanBulkMillis, double p99BulkMillis) {}

  private RefreshLayout() {}

  /** The entity names a layout writes to under {@code prefix}; the per-entity ones are plain indices. */
  public static Map<ReadModelIndex, String> prepare(SearchStore store, String prefix, Layout layout, String refreshInterval) {
    Map<ReadModelIndex, String> names = new LinkedHashMap<>();
    if (layout == Layout.SHARED) {
      new SchemaManager(store, prefix, refreshInterval).ensureSchema();
      WRITTEN.forEach(index -> names.put(index, index.indexName(prefix)));
      return names;
    }
    for (ReadModelIndex index : WRITTEN) {
      // not an entity name, so the adapters write it as a plain index: no kind, no id prefix
      String name = prefix + "-" + index.entity() + "-own";
      store.createIndex(name, ownIndexBody(index, refreshInterval));
      names.put(index, name);
    }
    return names;
  }

  private static String ownIndexBody(ReadModelIndex index, String refreshInterval) {
    try (InputStream in = ReadModelIndex.class.getResourceAsStream("/flowpipe/schema/" + index.entity() + ".json")) {
      if (in == null) {
        throw new IllegalStateException("no schema resource for " + index.entity());
      }
      ObjectNode body = JSON.createObjectNode();
      ObjectNode settings = body.putObject("settings").putObject("index");
      settings.put("number_of_shards", 1).put("number_of_replicas", 0).put("refresh_interval", refreshInterval);
      ObjectNode mappings = body.putObject("mappings");
      mappings.put("dynamic", "strict");
      mappings.set("properties", JSON.readTree(in).path("properties"));
      return JSON.writeValueAsString(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The documents of one instance, at positions after {@code position[0]} (advanced). */
  public static List<DocumentWrite> instance(Map<ReadModelIndex, String> names, long instanceKey, long[] position) {
    String now = java.time.Instant.now().toString();
    List<DocumentWrite> writes = new ArrayList<>(7);
    writes.add(write(names.get(ReadModelIndex.PROCESS_INSTANCE), instanceKey, ++position[0], Map.of(
        "key", instanceKey, "processDefinitionKey", 42L, "bpmnProcessId", "bench", "version", 1, "state",
        "COMPLETED", "incident", false, "startDate", now, "endDate", now, "tenantId", "<default>", "partitionId", 1)));
    String[] elements = {"start", "task", "end"};
    String[] types = {"START_EVENT", "SERVICE_TASK", "END_EVENT"};
    for (int e = 0; e < 3; e++) {
      writes.add(write(names.get(ReadModelIndex.FLOW_NODE_INSTANCE), instanceKey + 1 + e, ++position[0], Map.of(
          "key", instanceKey + 1 + e, "processInstanceKey", instanceKey, "processDefinitionKey", 42L,
          "bpmnProcessId", "bench", "elementId", elements[e], "type", types[e], "state", "COMPLETED",
          "startDate", now, "endDate", now, "partitionId", 1)));
    }
    for (int v = 0; v < 2; v++) {
      writes.add(write(names.get(ReadModelIndex.VARIABLE), instanceKey + 4 + v, ++position[0], Map.of(
          "key", instanceKey + 4 + v, "scopeKey", instanceKey, "processInstanceKey", instanceKey,
          "name", v == 0 ? "orderId" : "amount", "value", v == 0 ? "\"order-" + instanceKey + "\"" : "125.5",
          "truncated", false, "lastUpdate", now, "partitionId", 1)));
    }
    writes.add(write(names.get(ReadModelIndex.JOB), instanceKey + 6, ++position[0], Map.of(
        "key", instanceKey + 6, "processInstanceKey", instanceKey, "elementInstanceKey", instanceKey + 2,
        "elementId", "task", "bpmnProcessId", "bench", "type", "work", "worker", "bench-worker", "retries", 3,
        "state", "COMPLETED", "partitionId", 1)));
    return writes;
  }

  private static DocumentWrite write(String index, long key, long position, Map<String, Object> document) {
    return new DocumentWrite(index, String.valueOf(key), position, document);
  }

  /**
   * Writes bulks of {@code instancesPerBulk} instances at {@code bulksPerSecond}, each asked to refresh, for
   * {@code duration}, and measures the store's CPU (from {@code storeCpuNanos}) and the bulk times.
   */
  public static Phase phase(SearchStore store, Map<ReadModelIndex, String> names, Layout layout, int round,
      int instancesPerBulk, double bulksPerSecond, Duration duration, LongSupplier storeCpuNanos, long[] keys,
      long[] position) {
    List<Double> bulkMillis = new ArrayList<>();
    long documents = 0;
    long interval = (long) (1e9 / bulksPerSecond);
    long cpuStart = storeCpuNanos.getAsLong();
    long start = System.nanoTime();
    long next = start;
    while (System.nanoTime() - start < duration.toNanos()) {
      List<DocumentWrite> writes = new ArrayList<>();
      for (int i = 0; i < instancesPerBulk; i++) {
        keys[0] += 10;
        writes.addAll(instance(names, keys[0], position));
      }
      long sent = System.nanoTime();
      BulkOutcome outcome = store.bulk(writes, true);
      bulkMillis.add((System.nanoTime() - sent) / 1e6);
      if (!outcome.failures().isEmpty()) {
        throw new IllegalStateException("bulk failed: " + outcome.failures().getFirst());
      }
      documents += outcome.written().size();
      next += interval;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        sleep(wait);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double cores = (storeCpuNanos.getAsLong() - cpuStart) / 1e9 / seconds;
    Collections.sort(bulkMillis);
    double mean = bulkMillis.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    double p99 = bulkMillis.isEmpty() ? Double.NaN : bulkMillis.get((int) Math.ceil(0.99 * bulkMillis.size()) - 1);
    return new Phase(layout, round, bulkMillis.size(), documents, seconds, cores, mean, p99);
  }

  private static void sleep(long nanos) {
    try {
      Thread.sleep(Duration.ofNanos(nanos));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
