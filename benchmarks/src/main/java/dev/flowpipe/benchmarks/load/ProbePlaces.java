package dev.flowpipe.benchmarks.load;

import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.protocol.record.ValueType;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The places a completed probe instance becomes searchable in, each asked for many keys in one search. */
public final class ProbePlaces {

  private ProbePlaces() {}

  /** COMPLETED in a read model's process-instance index (what a UI would search); the end date is the engine's. */
  public static PendingProbes.Place readModel(String name, SearchStore store, String indexPrefix) {
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(indexPrefix);
    return new PendingProbes.Place(name, keys -> {
      Map<Long, Long> completed = new HashMap<>();
      store.search(new SearchQuery(List.of(index), List.of(new Criterion.OneOf("key", List.<Object>copyOf(keys)),
              new Criterion.Equals("state", "COMPLETED")), List.of(), 0, keys.size(), List.of(), List.of()))
          .hits().forEach(hit -> completed.put(((Number) hit.source().get("key")).longValue(),
              Instant.parse((String) hit.source().get("endDate")).toEpochMilli()));
      return completed;
    });
  }

  /** The stock exporter's raw ELEMENT_COMPLETED record of the process element; its timestamp is the completion. */
  public static PendingProbes.Place rawRecords(String name, SearchStore store, String stockPrefix) {
    String pattern = new RawRecordIndices(stockPrefix).pattern(ValueType.PROCESS_INSTANCE);
    return new PendingProbes.Place(name, keys -> {
      Map<Long, Long> completed = new HashMap<>();
      store.search(new SearchQuery(List.of(pattern), List.of(new Criterion.Equals("intent", "ELEMENT_COMPLETED"),
              new Criterion.Equals("value.bpmnElementType", "PROCESS"),
              new Criterion.OneOf("value.processInstanceKey", List.<Object>copyOf(keys))), List.of(), 0, keys.size(),
              List.of(), List.of()))
          .hits().forEach(hit -> {
            Map<?, ?> value = (Map<?, ?>) hit.source().get("value");
            completed.put(((Number) value.get("processInstanceKey")).longValue(),
                ((Number) hit.source().get("timestamp")).longValue());
          });
      return completed;
    });
  }
}
