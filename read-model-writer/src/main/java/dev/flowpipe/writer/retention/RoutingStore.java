package dev.flowpipe.writer.retention;

import dev.flowpipe.schema.index.IndexLayout;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.ValueCountQuery;
import dev.flowpipe.schema.retention.BucketTable;
import dev.flowpipe.schema.retention.BucketTableStore;
import dev.flowpipe.schema.retention.Period;
import dev.flowpipe.schema.retention.PeriodIndices;
import dev.flowpipe.schema.retention.RetentionSettings;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.IndexAdmin;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreProduct;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;

/**
 * The store as the exporter's session sees it with retention on (ADR 0011): writes and base reads of a routed name
 * ({@link RoutedIndex}) go to the period of the document's instance, through that period's entity name; documents of
 * a period being or having been deleted are dropped (counted as already applied), since only a replay of instances
 * that ended long ago can produce them. Before routing anything it makes the new periods' boundaries durable, index
 * first, so no document of a period exists before its boundary. Everything else passes through.
 *
 * <p>Used from the session's threads only (bulks and their base reads), never from the broker's actor.
 */
final class RoutingStore implements SearchStore {

  private final SearchStore store;
  private final String prefix;
  private final int partitionId;
  private final RetentionSettings settings;
  private final Queue<PeriodRouter.Creation> creations;
  private final BucketTableStore tableStore;
  private final PeriodIndices periodIndices;
  // opened in memory, not yet durable: written before the next routed request
  private final List<BucketTable.Boundary> undurable = new ArrayList<>();
  private final Set<Period> ensured = new HashSet<>();
  private BucketTable table;

  RoutingStore(SearchStore store, String prefix, int partitionId, RetentionSettings settings, IndexLayout layout,
      Queue<PeriodRouter.Creation> creations) {
    this.store = store;
    this.prefix = prefix;
    this.partitionId = partitionId;
    this.settings = settings;
    this.creations = creations;
    this.tableStore = new BucketTableStore(store, prefix);
    this.periodIndices = new PeriodIndices(store, prefix, layout);
  }

  @Override
  public BulkOutcome bulk(List<DocumentWrite> writes, boolean refresh) {
    List<DocumentWrite> routed = new ArrayList<>(writes.size());
    Map<DocumentWrite, DocumentWrite> original = new IdentityHashMap<>();
    List<DocumentWrite> dropped = new ArrayList<>();
    List<Optional<String>> targets = targets(writes.stream().map(DocumentWrite::index).toList());
    for (int i = 0; i < writes.size(); i++) {
      DocumentWrite write = writes.get(i);
      Optional<String> target = targets.get(i);
      if (target.isEmpty()) {
        dropped.add(write);
      } else {
        DocumentWrite to = target.get().equals(write.index())
            ? write
            : new DocumentWrite(target.get(), write.id(), write.position(), write.document());
        routed.add(to);
        original.put(to, write);
      }
    }
    BulkOutcome outcome = routed.isEmpty() ? new BulkOutcome(List.of(), List.of(), List.of())
        : store.bulk(routed, refresh);
    List<DocumentWrite> superseded = new ArrayList<>(dropped);
    outcome.superseded().forEach(write -> superseded.add(original.get(write)));
    return new BulkOutcome(outcome.written().stream().map(original::get).toList(), superseded,
        outcome.failures().stream().map(failure ->
            new BulkOutcome.ItemFailure(original.get(failure.write()), failure.status(), failure.reason())).toList());
  }

  @Override
  public Map<String, Map<String, Object>> getAll(String index, List<String> ids) {
    Optional<String> target = targets(List.of(index)).getFirst();
    return target.isEmpty() ? Map.of() : store.getAll(target.get(), ids);
  }

  /** The bases of many routed names in one read per period index they fall in (not one per instance). */
  @Override
  public Map<String, Map<String, Map<String, Object>>> getAll(Map<String, List<String>> idsByIndex) {
    List<String> names = List.copyOf(idsByIndex.keySet());
    List<Optional<String>> targets = targets(names);
    Map<String, List<String>> idsByTarget = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      if (targets.get(i).isPresent()) {
        idsByTarget.computeIfAbsent(targets.get(i).get(), target -> new ArrayList<>())
            .addAll(idsByIndex.get(names.get(i)));
      }
    }
    Map<String, Map<String, Map<String, Object>>> byTarget = store.getAll(idsByTarget);
    Map<String, Map<String, Map<String, Object>>> found = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      Map<String, Map<String, Object>> inTarget = targets.get(i).map(byTarget::get).orElse(Map.of());
      Map<String, Map<String, Object>> mine = new LinkedHashMap<>();
      for (String id : idsByIndex.get(names.get(i))) {
        if (inTarget.containsKey(id)) {
          mine.put(id, inTarget.get(id));
        }
      }
      found.put(names.get(i), mine);
    }
    return found;
  }

  /**
   * The targets of these names, once the periods opened so far are durable; one at a time, while the writes
   * themselves go concurrently (bulks in flight).
   */
  private synchronized List<Optional<String>> targets(List<String> indices) {
    openPeriods();
    return indices.stream().map(this::target).toList();
  }

  /**
   * Where a document of this name goes: the period of its instance (created if missing), the entity's name when
   * the instance is older than the partition's first period (the base), or nowhere when its period is deleted.
   */
  private Optional<String> target(String index) {
    Optional<RoutedIndex> routed = RoutedIndex.parse(index);
    if (routed.isEmpty()) {
      return Optional.of(index);
    }
    RoutedIndex name = routed.get();
    Optional<Period> period = table.periodOf(name.partition(), name.instanceKey());
    if (period.isEmpty()) {
      return Optional.of(name.entityName());
    }
    if (table.state(period.get()) != BucketTable.State.LIVE) {
      return Optional.empty();
    }
    if (ensured.add(period.get())) {
      periodIndices.ensure(period.get());
    }
    return Optional.of(period.get().entityName(prefix, name.entity()));
  }

  /** Loads the table on first use, and opens (durably) the periods the creations noted since then open. */
  private void openPeriods() {
    if (table == null) {
      tableStore.ensureIndex();
      table = tableStore.read(settings.period());
    }
    for (PeriodRouter.Creation creation; (creation = creations.poll()) != null; ) {
      table.open(partitionId, creation.instanceKey(), creation.recordTime(), creation.position())
          .ifPresent(undurable::add);
    }
    while (!undurable.isEmpty()) {
      BucketTable.Boundary boundary = undurable.getFirst();
      periodIndices.ensure(boundary.period()); // the index before the boundary: routing never meets a missing index
      ensured.add(boundary.period());
      tableStore.write(boundary);
      undurable.removeFirst();
    }
  }

  // --- everything else passes through

  @Override
  public StoreProduct product() {
    return store.product();
  }

  @Override
  public String version() {
    return store.version();
  }

  @Override
  public String health() {
    return store.health();
  }

  @Override
  public boolean indexExists(String index) {
    return store.indexExists(index);
  }

  @Override
  public boolean createIndex(String index, String bodyJson) {
    return store.createIndex(index, bodyJson);
  }

  @Override
  public IndexAdmin admin() {
    return store.admin();
  }

  @Override
  public Map<String, Object> mappingMeta(String index) {
    return store.mappingMeta(index);
  }

  @Override
  public void put(String index, String id, Map<String, Object> document) {
    store.put(index, id, document);
  }

  @Override
  public void refresh(String index) {
    store.refresh(index);
  }

  @Override
  public Optional<Map<String, Object>> get(String index, String id) {
    return store.get(index, id);
  }

  @Override
  public List<Map<String, Object>> findByField(String index, String field, Object value, int size) {
    return store.findByField(index, field, value, size);
  }

  @Override
  public long count(String index) {
    return store.count(index);
  }

  @Override
  public List<Map<String, Object>> all(String index, int max) {
    return store.all(index, max);
  }

  @Override
  public SearchHits search(SearchQuery query) {
    return store.search(query);
  }

  @Override
  public List<ValueCountQuery.ValueCount> countByValue(ValueCountQuery query) {
    return store.countByValue(query);
  }

  @Override
  public dev.flowpipe.schema.query.GroupCountQuery.GroupCounts countGroups(
      dev.flowpipe.schema.query.GroupCountQuery query) {
    return store.countGroups(query);
  }

  @Override
  public Optional<Set<String>> runningTasks(String actions) {
    return store.runningTasks(actions);
  }

  @Override
  public void close() {
    store.close();
  }
}
