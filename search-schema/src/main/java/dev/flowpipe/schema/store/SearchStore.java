package dev.flowpipe.schema.store;

import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.ValueCountQuery;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The port to a search store (OpenSearch or Elasticsearch). Small on purpose: what the schema manager, the exporter
 * and the tests need, in the store's own terms, with no notion of records or partitions.
 *
 * <p>Every method throws {@link StoreUnavailableException} when the store cannot be reached.
 */
public interface SearchStore extends AutoCloseable {

  StoreProduct product();

  /** The store's version number as it reports it, e.g. "3.8.0". */
  String version();

  /** Cluster health: "green", "yellow" or "red". */
  String health();

  boolean indexExists(String index);

  /** Creates the index from a JSON body (settings, mappings). Returns false if it already existed. */
  boolean createIndex(String index, String bodyJson);

  /** Index administration (aliases, deletion, scans) in the store's REST API, sent through this adapter's client. */
  IndexAdmin admin();

  /** Deletes the index (not an alias); one that is already gone is no error. */
  default void deleteIndex(String index) {
    admin().deleteIndex(index);
  }

  /**
   * Applies alias actions in one atomic request: {@code {"actions": [{"add": {...}}, {"remove": {...}}]}} in the
   * store's alias API.
   */
  default void updateAliases(String actionsJson) {
    admin().updateAliases(actionsJson);
  }

  /**
   * Hands every document of a physical index to {@code pages}, at most {@code pageSize} at a time, as stored (ids and
   * sources untranslated) with its version: for copying an index, e.g. into a new schema version.
   */
  default void scan(String index, int pageSize, java.util.function.Consumer<List<StoredDocument>> pages) {
    admin().scan(index, pageSize, pages);
  }

  /** The index mapping's {@code _meta} object, or an empty map. */
  Map<String, Object> mappingMeta(String index);

  /**
   * Writes the documents in one request; they become searchable at the indices' next scheduled refresh.
   *
   * @throws RequestTooLargeException when the store refuses the request as too large (HTTP 413)
   */
  default BulkOutcome bulk(List<DocumentWrite> writes) {
    return bulk(writes, false);
  }

  /**
   * Writes the documents in one request. With {@code refresh}, the store refreshes the shards the request wrote to
   * before it answers, so the documents are searchable once it returns, without waiting for a scheduled refresh.
   *
   * @throws RequestTooLargeException when the store refuses the request as too large (HTTP 413)
   */
  BulkOutcome bulk(List<DocumentWrite> writes, boolean refresh);

  /** The stored documents with these ids (read in real time, not only after a refresh); missing ids are absent. */
  Map<String, Map<String, Object>> getAll(String index, List<String> ids);

  /**
   * The stored documents of several indices at once (by index, then id), as {@link #getAll(String, List)} per index;
   * a store that routes names to fewer indices (retention's, ADR 0011) asks each of those once.
   */
  default Map<String, Map<String, Map<String, Object>>> getAll(Map<String, List<String>> idsByIndex) {
    Map<String, Map<String, Map<String, Object>>> found = new java.util.LinkedHashMap<>();
    idsByIndex.forEach((index, ids) -> found.put(index, getAll(index, ids)));
    return found;
  }

  /**
   * Writes one document under this id without versioning (for the dead-letter index): writing it again replaces it, so
   * a retried write leaves one copy.
   */
  void put(String index, String id, Map<String, Object> document);

  void refresh(String index);

  Optional<Map<String, Object>> get(String index, String id);

  /** Documents whose {@code field} equals {@code value}, at most {@code size} of them. */
  List<Map<String, Object>> findByField(String index, String field, Object value, int size);

  long count(String index);

  /**
   * Every document of the index (up to {@code max}), ordered by key, then by partition and log position (documents
   * without a key):
   * for comparisons in tests and tools.
   */
  List<Map<String, Object>> all(String index, int max);

  /**
   * Searches what is searchable now (documents written since the last refresh are not yet), counting the total
   * exactly. Indices that do not exist count as empty.
   *
   * @throws QueryRejectedException when the store refuses the query as malformed
   * @throws RequestTooLargeException when the store refuses the search as too large (HTTP 413): ask for fewer hits
   */
  SearchHits search(SearchQuery query);

  /**
   * Counts what is searchable now per value of a field (and per named condition within each value), in one request,
   * in value order. Indices that do not exist count as empty.
   *
   * @throws QueryRejectedException when the store refuses the count (e.g. a field it cannot group by)
   */
  List<ValueCountQuery.ValueCount> countByValue(ValueCountQuery query);

  /**
   * One page of counts per group of values ({@link dev.flowpipe.schema.query.GroupCountQuery}, a composite
   * aggregation): ask again with {@code afterKey} until it is null, and no group is left out.
   *
   * @throws dev.flowpipe.schema.store.QueryRejectedException when the store refuses the count
   * @throws SearchTimedOutException when the store stopped it at the query's timeout
   */
  default dev.flowpipe.schema.query.GroupCountQuery.GroupCounts countGroups(
      dev.flowpipe.schema.query.GroupCountQuery query) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not count groups");
  }

  /**
   * The ids of the tasks running in the store now whose action matches {@code actions} (a task action pattern, e.g.
   * {@code indices:data/write/bulk}), or empty when the store does not let this user list tasks.
   */
  Optional<Set<String>> runningTasks(String actions);

  @Override
  void close();
}
