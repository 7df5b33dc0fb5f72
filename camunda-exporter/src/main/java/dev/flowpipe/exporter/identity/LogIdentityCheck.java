package dev.flowpipe.exporter.identity;

import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Decides, when the exporter has opened and seen its first record, whether the partition's log is the one the store's
 * read model comes from. Pure: what the broker knows (the id in the exporter's metadata), what the store holds (the
 * partition's identity document and export position) and the first record handed over since opening.
 *
 * <ul>
 *   <li>The store knows no log for the partition: this log becomes its log (a new id unless the broker has one).
 *   <li>Both know an id: the same is the same log; different ones are a foreign store.
 *   <li>Only the store knows one: either the broker lost the metadata (it keeps it in snapshots, so a crash before
 *       the first snapshot after the first acknowledgement loses it; the exporter then starts over from the log's
 *       beginning, where it meets the same first record) or the log is new (wiped, or another cluster's), whose first
 *       record is another. So the first record decides: the same position and engine time is the same log. A broker
 *       that has acknowledged positions without an id (an exporter from before log identities) kept its log: that
 *       log is taken as the store's.
 * </ul>
 */
public final class LogIdentityCheck {

  /** What the exporter does. */
  public sealed interface Decision {
    /** The store's read model comes from this log: export on. */
    record Same(LogIdentity identity) implements Decision {}

    /** The store knows no log for the partition: record this one there, then export. */
    record First(LogIdentity identity) implements Decision {}

    /** The store's read model comes from another log; {@code message} names both and the way out. */
    record Foreign(LogIdentity stored, String message) implements Decision {}
  }

  private LogIdentityCheck() {}

  /**
   * @param known the log id in the exporter's metadata, if any
   * @param stored the partition's identity document in the store, if any
   * @param storedExportPosition the partition's export position in the store, or -1
   * @param brokerPosition the position the broker had for this exporter when it opened (-1: none, a new state)
   * @param position position of the first record handed to the exporter since it opened
   * @param timestamp that record's engine time
   * @param newId makes a new log id
   * @param wayOut how to reconcile, for the message
   */
  public static Decision decide(int partitionId, Optional<String> known, Optional<LogIdentity> stored,
      long storedExportPosition, long brokerPosition, long position, long timestamp, Supplier<String> newId, String wayOut) {
    if (stored.isEmpty()) {
      return new Decision.First(new LogIdentity(known.orElseGet(newId), partitionId, position, timestamp));
    }
    LogIdentity store = stored.get();
    if (known.isPresent()) {
      return known.get().equals(store.logId())
          ? new Decision.Same(store)
          : new Decision.Foreign(store, "partition " + partitionId + "'s log is log " + known.get()
              + " (now at position " + position + ") but the search store's read model of that partition comes from "
              + store.describe() + storeExported(storedExportPosition) + ": refusing to mix them. " + wayOut);
    }
    if (position == store.firstPosition() && timestamp == store.firstTimestamp() || brokerPosition >= 0) {
      return new Decision.Same(store);
    }
    return new Decision.Foreign(store, "partition " + partitionId + "'s log is not the one the search store's read"
        + " model comes from: this log starts again at position " + position + " (written " + Instant.ofEpochMilli(timestamp)
        + ") and carries no log id, but the store's read model of that partition comes from " + store.describe()
        + storeExported(storedExportPosition) + " - the broker's log was wiped or belongs to another cluster. "
        + wayOut);
  }

  private static String storeExported(long storedExportPosition) {
    return storedExportPosition < 0 ? "" : ", exported up to position " + storedExportPosition;
  }
}
