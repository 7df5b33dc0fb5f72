package dev.flowpipe.webapp.batch;

import dev.flowpipe.schema.index.BatchOperationIndex;
import dev.flowpipe.schema.lease.StoreLease;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where batch operations and their items are kept: one index beside the read model,
 * {@code <prefix>-batch-operation-v1}, a document per batch (id: its key), per item (id: batch key and item key) and
 * per batch's lease ({@link #lease}; id: {@code lease-} and the key). Kept in the store so that a batch goes on after a
 * restart of the web app or the node, and so that the web apps sharing the store run each batch once.
 */
public final class BatchOperationStore {

  static final String KIND = "kind";
  private final ReadModel readModel;
  private volatile boolean indexReady;

  public BatchOperationStore(ReadModel readModel) {
    this.readModel = readModel;
  }

  String index() {
    return BatchOperationIndex.name(readModel.indexPrefix());
  }

  private SearchStore store() {
    SearchStore store = readModel.store();
    if (!indexReady) {
      if (!store.indexExists(index())) {
        store.createIndex(index(), BatchOperationIndex.BODY);
      }
      indexReady = true;
    }
    return store;
  }

  /** The lease marker of a batch: which web app runs it ({@link StoreLease}). */
  StoreLease lease(String batchKey, String owner, Clock clock, Duration expiry) {
    return new StoreLease(store(), index(), "lease-" + batchKey, owner, clock, expiry);
  }

  void putBatch(Map<String, Object> batch) {
    store().put(index(), (String) batch.get("batchOperationKey"), batch);
  }

  Optional<Map<String, Object>> batch(String key) {
    return store().get(index(), key).filter(document -> "batch".equals(document.get(KIND)));
  }

  /** Writes new items in one bulk, searchable when it returns. */
  void addItems(List<Map<String, Object>> items) {
    if (items.isEmpty()) {
      return;
    }
    List<DocumentWrite> writes = new ArrayList<>();
    for (Map<String, Object> item : items) {
      writes.add(new DocumentWrite(index(), itemId(item), 1, item));
    }
    var outcome = store().bulk(writes, true);
    if (!outcome.failures().isEmpty()) {
      throw new IllegalStateException("the store refused batch items: " + outcome.failures());
    }
  }

  void putItem(Map<String, Object> item) {
    store().put(index(), itemId(item), item);
  }

  private static String itemId(Map<String, Object> item) {
    return item.get("batchOperationKey") + "-" + item.get("itemKey");
  }

  /** Batches in one state, oldest first. */
  List<Map<String, Object>> batchesIn(String state) {
    store().refresh(index());
    return store().search(SearchQuery.of(index(), List.of(new Criterion.Equals(KIND, "batch"),
        new Criterion.Equals("state", state)), List.of(new SortField("batchOperationKey", false, false)), 1000))
        .hits().stream().map(SearchHits.Hit::source).toList();
  }

  /** One page of a batch's items, optionally in one state, in item order. */
  SearchHits items(String batchKey, String state, int from, int size) {
    List<Criterion> criteria = new ArrayList<>(List.of(new Criterion.Equals(KIND, "item"),
        new Criterion.Equals("batchOperationKey", batchKey)));
    if (state != null) {
      criteria.add(new Criterion.Equals("state", state));
    }
    store().refresh(index());
    return store().search(new SearchQuery(List.of(index()), criteria,
        List.of(new SortField("itemKey", false, false)), from, size, List.of(), List.of()));
  }
}
