package dev.flowpipe.schema.lease;

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
 * Which one of several processes (partitions, nodes, an importer, web apps) runs a piece of work against one store: a
 * marker document whose version is a generation number. Claiming or renewing writes the next generation with external
 * versioning, so of two processes writing the same generation the store takes one and answers the other 409: a
 * compare-and-set with nothing but the store's versioning, the same in both store adapters. Used by the schema
 * migration and by batch operations.
 *
 * <p>A holder renews as it goes. A waiter takes over only after the generation has not moved for {@code expiry} on its
 * own clock, so clocks of different machines are never compared; a holder that finds its generation taken stops
 * ({@link LeaseLostException}), and one that could not renew for half the expiry no longer {@link #holds()} it, so it
 * stops acting before a waiter can have taken over. The marker records the owner, its state and when it was written;
 * thread-safe (a holder renews on one thread and asks {@link #holds()} on others).
 */
public final class StoreLease {

  public static final String RUNNING = "RUNNING";
  public static final String DONE = "DONE";

  private final SearchStore store;
  private final String index;
  private final String id;
  private final String owner;
  private final Clock clock;
  private final Duration expiry;

  private long generation; // the last generation seen or written
  private Instant generationSeenAt;
  private Instant unreadableSince;
  private Instant writtenAt; // when this process last wrote a generation of its own (null: it holds none)

  public StoreLease(SearchStore store, String index, String id, String owner, Clock clock, Duration expiry) {
    if (expiry == null || expiry.isNegative() || expiry.isZero()) {
      throw new IllegalArgumentException("lease expiry must be > 0, was " + expiry);
    }
    this.store = store;
    this.index = index;
    this.id = id;
    this.owner = owner;
    this.clock = clock;
    this.expiry = expiry;
  }

  /** A marker index's body: small, one shard. */
  public static String indexBody(int replicas) {
    return """
        {"settings": {"index": {"number_of_shards": 1, "number_of_replicas": %d}},
         "mappings": {"dynamic": false, "properties": {
           "state": {"type": "keyword"}, "owner": {"type": "keyword"}, "position": {"type": "long"}}}}
        """.formatted(replicas);
  }

  /**
   * Claims the work if no one holds it, it is done (and yet something is left to do), or its holder has been silent
   * for the expiry. False when another process holds it.
   */
  public synchronized boolean tryClaim(Map<String, Object> details) {
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
      writtenAt = null;
    }
    boolean free = marker.isEmpty() || DONE.equals(marker.get().get("state"))
        || !Duration.between(generationSeenAt, now).minus(expiry).isNegative();
    return free && write(seen + 1, RUNNING, details);
  }

  /**
   * Claims work no marker exists for yet (generation 1); false where one exists, whatever its state: the marker's id is
   * taken, e.g. a batch key another process chose too.
   */
  public synchronized boolean claimNew(Map<String, Object> details) {
    return write(1, RUNNING, details);
  }

  /** Renews the claim, recording {@code details} (progress). */
  public synchronized void renew(Map<String, Object> details) {
    if (!write(generation + 1, RUNNING, details)) {
      throw new LeaseLostException("another process took over " + index + "/" + id + "; this one (" + owner
          + ") stops");
    }
  }

  /** Marks the work done: the marker is then free to claim. */
  public synchronized void finish(Map<String, Object> details) {
    if (!write(generation + 1, DONE, details)) {
      throw new LeaseLostException("another process took over " + index + "/" + id + " before it finished here");
    }
    writtenAt = null;
  }

  /**
   * Whether this process holds the claim and wrote it within half the expiry: a waiter takes over only after a whole
   * expiry without a new generation, so a holder that stops acting once this is false never overlaps with it.
   */
  public synchronized boolean holds() {
    return writtenAt != null
        && Duration.between(writtenAt, clock.instant()).compareTo(expiry.dividedBy(2)) < 0;
  }

  public String owner() {
    return owner;
  }

  /** Writes a generation; false when the store holds it or a later one already (another process was first). */
  private boolean write(long next, String state, Map<String, Object> details) {
    Instant now = clock.instant();
    Map<String, Object> document = new LinkedHashMap<>(details);
    document.put("state", state);
    document.put("owner", owner);
    document.put("updated", now.toString());
    document.put("expiry", expiry.toString());
    BulkOutcome outcome = store.bulk(List.of(new DocumentWrite(index, id, next, document)), true);
    if (!outcome.failures().isEmpty()) {
      throw new IllegalStateException("writing the lease marker " + index + "/" + id + " failed: "
          + outcome.failures().getFirst().reason());
    }
    if (!outcome.written().isEmpty()) {
      generation = next;
      generationSeenAt = now;
      writtenAt = now;
      return true;
    }
    writtenAt = null;
    return false;
  }

  /** This process no longer holds the work. */
  public static final class LeaseLostException extends IllegalStateException {
    public LeaseLostException(String message) {
      super(message);
    }
  }
}
