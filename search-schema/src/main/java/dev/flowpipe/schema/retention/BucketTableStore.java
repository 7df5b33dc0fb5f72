package dev.flowpipe.schema.retention;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The durable copy of the {@link BucketTable}, in {@code <prefix>-retention-v2}: one document per boundary
 * ({@code boundary-<partition>-<period>}) and one per period being or having been deleted ({@code period-<period>}).
 * Both are written whole and idempotently (the same id and content on a retry), and refreshed at once: they are rare
 * (once per period per partition) and the next reader must see them.
 */
public final class BucketTableStore {

  // far more than a table ever holds: days kept times partitions, or seconds-wide periods in tests
  private static final int MAX_ENTRIES = 10_000;

  private final SearchStore store;
  private final String index;
  private volatile boolean positionMapped;

  public BucketTableStore(SearchStore store, String prefix) {
    this.store = Objects.requireNonNull(store);
    this.index = indexName(prefix);
  }

  public static String indexName(String prefix) {
    return prefix + "-retention-v" + ReadModelIndex.SCHEMA_VERSION;
  }

  /** Creates the index if missing. */
  public void ensureIndex() {
    if (!store.indexExists(index)) {
      store.createIndex(index, """
          {"settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0}},
           "mappings": {"dynamic": "strict", "_meta": {"schemaVersion": %d}, "properties": {
             "key": {"type": "keyword"}, "type": {"type": "keyword"}, "partition": {"type": "integer"}, "periodStart": {"type": "long"},
             "periodSeconds": {"type": "long"}, "firstKey": {"type": "long"}, "position": {"type": "long"},
             "state": {"type": "keyword"}}}}
          """.formatted(ReadModelIndex.SCHEMA_VERSION));
    } else if (!positionMapped) {
      // a table created before boundaries kept their position: the field is added (an additive mapping change)
      store.admin().request("map boundary positions in " + index, "PUT", "/" + index + "/_mapping",
          Map.of("properties", Map.of("position", Map.of("type", "long"))));
    }
    positionMapped = true;
  }

  /** Makes the boundary durable (and searchable). */
  public void write(BucketTable.Boundary boundary) {
    Map<String, Object> document = new LinkedHashMap<>();
    String id = "boundary-" + boundary.partition() + "-" + boundary.period().label();
    document.put("key", id);
    document.put("type", "boundary");
    document.put("partition", boundary.partition());
    document.put("periodStart", boundary.period().start().getEpochSecond());
    document.put("periodSeconds", boundary.period().width().getSeconds());
    document.put("firstKey", boundary.firstKey());
    document.put("position", boundary.position());
    store.put(index, id, document);
    store.refresh(index);
  }

  /** Makes the period's state durable (and searchable). */
  public void write(Period period, BucketTable.State state) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("key", "period-" + period.label());
    document.put("type", "period");
    document.put("periodStart", period.start().getEpochSecond());
    document.put("periodSeconds", period.width().getSeconds());
    document.put("state", state.name());
    store.put(index, "period-" + period.label(), document);
    store.refresh(index);
  }

  /** The table as the store holds it; an empty one when the index does not exist yet. */
  public BucketTable read(Duration width) {
    BucketTable table = new BucketTable(width);
    if (!store.indexExists(index)) {
      return table;
    }
    store.refresh(index);
    for (Map<String, Object> document : store.all(index, MAX_ENTRIES)) {
      Period period = new Period(Instant.ofEpochSecond(number(document, "periodStart")),
          Duration.ofSeconds(number(document, "periodSeconds")));
      if ("boundary".equals(document.get("type"))) {
        table.add(new BucketTable.Boundary((int) number(document, "partition"), period, number(document, "firstKey"),
            document.get("position") instanceof Number position ? position.longValue()
                : BucketTable.UNKNOWN_POSITION));
      } else {
        table.mark(period, BucketTable.State.valueOf((String) document.get("state")));
      }
    }
    return table;
  }

  private static long number(Map<String, Object> document, String field) {
    return ((Number) document.get(field)).longValue();
  }
}
