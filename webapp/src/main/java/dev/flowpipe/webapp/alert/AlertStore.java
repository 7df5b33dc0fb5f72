package dev.flowpipe.webapp.alert;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Instant;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The alerts and their deliveries in the read model (ADR 0021). Every change is a compare-and-set: a document is
 * written at its version plus one with external versioning, so of two processes that read the same version only one
 * write is taken and the other is answered 409 (false here): the store's own optimistic concurrency, the same on
 * OpenSearch and Elasticsearch, as {@link dev.flowpipe.schema.lease.StoreLease} uses it. A search that shows an older
 * version than the store holds (not yet refreshed) only leads to a refused write.
 *
 * <p>Writes of a round go in one bulk each (arming, claiming, marking), not one request per document. Writes go to the
 * index the document was found in: with retention (ADR 0011) that is its period's own name, so a
 * delivery lives and is deleted with its alert's instance.
 */
final class AlertStore {

  /** A document as found: where it is, its version (its {@code position}), its fields. */
  record Found(String index, String id, long version, Map<String, Object> source) {}

  private static final Logger LOG = LoggerFactory.getLogger(AlertStore.class);

  // "-alert-v2": what an alert's index name ends with, whatever the period
  private static final String ALERT_SUFFIX = ReadModelIndex.ALERT.indexName("");

  private final ReadModel readModel;

  AlertStore(ReadModel readModel) {
    this.readModel = readModel;
  }

  /** Alerts the writer armed that no dispatcher has turned into deliveries yet, oldest first. */
  List<Found> newAlerts(int max) {
    return find(readModel.index(ReadModelIndex.ALERT), List.of(new Criterion.Equals("state", AlertStates.NEW)),
        List.of(SortField.ascending("creationTime"), SortField.ascending("key")), max);
  }

  /**
   * Deliveries to this endpoint due now: pending ones whose next attempt has come, and claimed ones whose claim has
   * expired (a process that stopped between claim and mark), soonest first.
   */
  List<Found> dueDeliveries(String endpoint, Instant now, int max) {
    String at = now.toString();
    return find(readModel.index(ReadModelIndex.ALERT_DELIVERY), List.of(
            new Criterion.Equals("endpoint", endpoint),
            new Criterion.AnyOf(List.of(
                List.of(new Criterion.Equals("state", AlertStates.PENDING),
                    new Criterion.Range("nextAttemptAt", null, null, null, at)),
                List.of(new Criterion.Equals("state", AlertStates.SENDING),
                    new Criterion.Range("claimExpiresAt", null, null, null, at))))),
        List.of(SortField.ascending("nextAttemptAt"), SortField.ascending("key")), max);
  }

  /** How many deliveries are in this state, as searchable now. */
  long countDeliveries(String state) {
    return readModel.store().search(SearchQuery.of(readModel.index(ReadModelIndex.ALERT_DELIVERY),
        List.of(new Criterion.Equals("state", state)), List.of(), 0)).total();
  }

  /** The deployed process definition of this key (its version for the alert's body), if the read model has it. */
  Optional<Map<String, Object>> processDefinition(long key) {
    return readModel.store().get(readModel.index(ReadModelIndex.PROCESS_DEFINITION), String.valueOf(key));
  }

  /** The write that creates the delivery of {@code alert} to {@code endpoint} at version 1, in the alert's period. */
  static DocumentWrite newDelivery(Found alert, String endpoint, Map<String, Object> source) {
    String index = alert.index().substring(0, alert.index().length() - ALERT_SUFFIX.length())
        + ReadModelIndex.ALERT_DELIVERY.indexName("");
    return new DocumentWrite(index, deliveryId(alert.id(), endpoint), 1, source);
  }

  /** The write that replaces the document with {@code source} if the store still holds the version it was found at. */
  static DocumentWrite replacing(Found found, Map<String, Object> source) {
    return new DocumentWrite(found.index(), found.id(), found.version() + 1, source);
  }

  /** The document as it is once {@code write} (a {@link #replacing}) is taken. */
  static Found written(DocumentWrite write) {
    return new Found(write.index(), write.id(), write.position(), write.document());
  }

  static String deliveryId(String alertId, String endpoint) {
    return alertId + "-" + endpoint;
  }

  /**
   * Writes in one request (refreshed at once, so the next round's search on any process sees them) and answers
   * the writes the store took; the others were refused as older than what it holds (another process was first). A
   * write the store failed is logged and counts as not taken: its document is tried again in a later round.
   */
  Set<DocumentWrite> writeAll(List<DocumentWrite> writes) {
    if (writes.isEmpty()) {
      return Set.of();
    }
    BulkOutcome outcome = readModel.store().bulk(writes, true);
    for (BulkOutcome.ItemFailure failure : outcome.failures()) {
      LOG.warn("writing {}/{} failed ({}): {}", failure.write().index(), failure.write().id(), failure.status(),
          failure.reason());
    }
    Set<DocumentWrite> taken = Collections.newSetFromMap(new IdentityHashMap<>());
    taken.addAll(outcome.written());
    return taken;
  }

  private List<Found> find(String index, List<Criterion> criteria, List<SortField> sort, int max) {
    return readModel.store().search(SearchQuery.of(index, criteria, sort, max)).hits().stream()
        .map(hit -> new Found(hit.index(), hit.id(), ((Number) hit.source().get("position")).longValue(),
            hit.source()))
        .toList();
  }
}
