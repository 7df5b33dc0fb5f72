package dev.flowpipe.schema.index;

import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreUnavailableException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who runs a schema migration, when several processes (partitions, nodes, an importer) start against one store at
 * once: a marker document whose version is a generation number. Claiming or renewing writes the next generation with
 * external versioning, so of two processes writing the same generation the store takes one and answers the other 409:
 * a compare-and-set with nothing but the store's versioning.
 *
 * <p>A holder renews after every page it copies. A waiter takes over only after the generation has not moved for
 * {@code expiry} on its own clock, so clocks of different machines are never compared; a holder that finds its
 * generation taken stops ({@link LeaseLostException}).
 */
final class MigrationLease {

  static final String RUNNING = "RUNNING";
  static final String DONE = "DONE";

  private final SearchStore store;
  private final String index;
  private final String id;
  private final String owner;
  private final Clock clock;
  private final Duration expiry;

  private long generation; // the last generation seen or written
  private Instant generationSeenAt;
  private Instant unreadableSince;

  MigrationLease(SearchStore store, String index, String id, String owner, Clock clock, Duration expiry) {
    this.store = store;
    this.index = index;
    this.id = id;
    this.owner = owner;
    this.clock = clock;
    this.expiry = expiry;
  }

  /** The marker index's body: small, one shard. */
  static String indexBody(IndexLayout layout) {
    return """
        {"settings": {"index": {"number_of_shards": 1, "number_of_replicas": %d}},
         "mappings": {"dynamic": false, "properties": {
           "state": {"type": "keyword"}, "owner": {"type": "keyword"}, "position": {"type": "long"}}}}
        """.formatted(layout.replicas());
  }

  /**
   * Claims the migration if no one holds it, it is done (and yet something is left to migrate), or its holder has
   * been silent for the expiry. False when another process holds it.
   */
  boolean tryClaim() {
    Optional<Map<String, Object>> marker;
    try {
      marker = store.get(index, id);
      unreadableSince = null;
    } catch (StoreUnavailableException e) {
      // the marker index another process has just created may not have its shard started yet (503): look again at
      // the next poll, unless the store stays unavailable beyond the expiry
      Instant now = clock.instant();
      unreadableSince = unreadableSince == null ? now : unreadableSince;
      if (!Duration.between(unreadableSince, now).minus(expiry).isNegative()) {
        throw e;
      }
      return false;
    }
    long seen = marker.map(m -> ((Number) m.get("position")).longValue()).orElse(0L);
    Instant now = clock.instant();
    if (seen != generation || generationSeenAt == null) {
      generation = seen;
      generationSeenAt = now;
    }
    boolean free = marker.isEmpty() || DONE.equals(marker.get().get("state"))
        || !Duration.between(generationSeenAt, now).minus(expiry).isNegative();
    return free && write(seen + 1, RUNNING, 0, 0);
  }

  /** Renews the claim, recording progress. */
  void renew(long copied, long total) {
    if (!write(generation + 1, RUNNING, copied, total)) {
      throw new LeaseLostException(
          "another process took over the schema migration (marker " + index + "/" + id + "); this one stops");
    }
  }

  void finish(long copied, long total) {
    if (!write(generation + 1, DONE, copied, total)) {
      throw new LeaseLostException("another process took over the schema migration before it finished here");
    }
  }

  /** Writes a generation; false when the store holds it or a later one already (another process was first). */
  private boolean write(long next, String state, long copied, long total) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("state", state);
    document.put("owner", owner);
    document.put("copied", copied);
    document.put("total", total);
    document.put("updated", clock.instant().toString());
    BulkOutcome outcome = store.bulk(List.of(new DocumentWrite(index, id, next, document)), true);
    if (!outcome.failures().isEmpty()) {
      throw new IllegalStateException("writing the schema migration marker " + index + "/" + id + " failed: "
          + outcome.failures().getFirst().reason());
    }
    if (!outcome.written().isEmpty()) {
      generation = next;
      generationSeenAt = clock.instant();
      return true;
    }
    return false;
  }

  /** This process no longer holds the migration. */
  static final class LeaseLostException extends IllegalStateException {
    LeaseLostException(String message) {
      super(message);
    }
  }
}
