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
  /** The field a versioned write sets to the document's version: a batch's revision. */
  static final String REVISION = "position";
  /**
   * The revision of a batch written before batches were versioned (by plain writes, whose internal versions count the
   * writes): above any such count, so the first versioned write is taken.
   */
  private static final long UNVERSIONED = 1L << 20;
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

  /** A batch as read, with its revision: what a write of it must be the next of. */
  record Versioned(Map<String, Object> batch, long revision) {}

  /** Writes a new batch (revision 1). */
  void addBatch(Map<String, Object> batch) {
    if (!replaceBatch(batch, 0)) {
      throw new IllegalStateException("batch " + batch.get("batchOperationKey") + " exists already");
    }
  }

  /**
   * Writes a batch as the next revision after {@code revision}; false where the store holds that revision already (a
   * concurrent change of another thread or web app was first: read it again and redo the change). Searchable at once.
   */
  boolean replaceBatch(Map<String, Object> batch, long revision) {
    var outcome = store().bulk(List.of(new DocumentWrite(index(), (String) batch.get("batchOperationKey"),
        revision + 1, batch)), true);
    if (!outcome.failures().isEmpty()) {
      throw new IllegalStateException("the store refused batch " + batch.get("batchOperationKey") + ": "
          + outcome.failures().getFirst().reason());
    }
    return !outcome.written().isEmpty();
  }

  Optional<Map<String, Object>> batch(String key) {
    return versionedBatch(key).map(Versioned::batch);
  }

  /** A batch read in real time, with its revision. */
  Optional<Versioned> versionedBatch(String key) {
    return store().get(index(), key).filter(document -> "batch".equals(document.get(KIND)))
        .map(document -> new Versioned(new java.util.LinkedHashMap<>(document),
            document.get(REVISION) instanceof Number revision ? revision.longValue() : UNVERSIONED));
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
    return batchesIn(List.of(new Criterion.Equals("state", state)));
  }

  /** Batches meeting the criteria, oldest first (at most 1000). */
  List<Map<String, Object>> batchesIn(List<Criterion> criteria) {
    List<Criterion> all = new ArrayList<>(criteria);
    all.add(new Criterion.Equals(KIND, "batch"));
    store().refresh(index());
    return store().search(SearchQuery.of(index(), all, List.of(new SortField("batchOperationKey", false, false)),
        1000)).hits().stream().map(SearchHits.Hit::source).toList();
  }

  /** A page of the batches or items (by {@code kind}) meeting the criteria, as a search of the API asks. */
  SearchHits search(String kind, List<Criterion> criteria, List<SortField> sort, int from, int size) {
    List<Criterion> all = new ArrayList<>(criteria);
    all.add(new Criterion.Equals(KIND, kind));
    store().refresh(index());
    return store().search(new SearchQuery(List.of(index()), all, sort, from, size, List.of(), List.of()));
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
