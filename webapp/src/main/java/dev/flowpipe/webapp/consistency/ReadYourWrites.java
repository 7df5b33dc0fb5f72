package dev.flowpipe.webapp.consistency;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Duration;
import java.util.List;

/**
 * Waits, up to the request's timeout, until the read model holds what a client asked for, then makes it searchable.
 *
 * <p>A process instance key is looked up with a real-time get (it sees a document as soon as the exporter wrote it,
 * before any refresh). A position P of a partition is reached when the partition's export position (the exporter's
 * marker: every record up to it is durable) is at P or beyond, also read with a real-time get. A document at P or
 * later would not say as much: a bulk can be partly written (some items refused for now, written again later), and
 * with several bulks in flight a later one can land first. Once the condition holds, the read model's indices are
 * refreshed, so the search that follows sees all of it, not only the documents the refresh interval already exposed.
 */
public final class ReadYourWrites {

  private final Duration pollInterval;

  public ReadYourWrites(Duration pollInterval) {
    this.pollInterval = pollInterval;
  }

  /**
   * Whether the wait reached its condition, and how long it took.
   *
   * @param reached the read model holds everything asked for; false when the timeout ran out first
   * @param waited the time spent waiting and refreshing
   */
  public record Outcome(boolean reached, Duration waited) {}

  public Outcome await(ReadModel model, ConsistencyRequest request) {
    long start = System.nanoTime();
    long deadline = start + request.timeout().toNanos();
    SearchStore store = model.store();
    boolean refreshed = false;
    while (true) {
      if (instanceWritten(model, store, request) && positionsSearchable(model, store, request)) {
        if (!refreshed) {
          refresh(model, store);
        }
        return new Outcome(true, Duration.ofNanos(System.nanoTime() - start));
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return new Outcome(false, Duration.ofNanos(System.nanoTime() - start));
      }
      sleep(Math.min(left, pollInterval.toNanos()));
      refreshed = false;
    }
  }

  private static boolean instanceWritten(ReadModel model, SearchStore store, ConsistencyRequest request) {
    return request.processInstanceKey() == null
        || store.get(model.index(ReadModelIndex.PROCESS_INSTANCE), String.valueOf(request.processInstanceKey()))
            .isPresent();
  }

  private static boolean positionsSearchable(
      ReadModel model, SearchStore store, ConsistencyRequest request) {
    for (ConsistencyRequest.PartitionPosition position : request.positions()) {
      Object exported = store.get(model.index(ReadModelIndex.EXPORT_POSITION),
              ReadModelIndex.exportPositionId(position.partitionId()))
          .map(marker -> marker.get("position")).orElse(null);
      if (!(exported instanceof Number reached) || reached.longValue() < position.position()) {
        return false;
      }
    }
    return true;
  }

  private static void refresh(ReadModel model, SearchStore store) {
    // the entities share one physical index: refresh it once, not once per entity name
    List<String> physical =
        ReadModelIndex.entities().stream()
            .map(index -> index.physicalIndexName(model.indexPrefix()))
            .distinct()
            .toList();
    for (String index : physical) {
      try {
        store.refresh(index);
      } catch (IllegalStateException e) {
        // the index does not exist (yet): nothing in it to make searchable
      }
    }
  }

  private static void sleep(long nanos) {
    try {
      Thread.sleep(Duration.ofNanos(nanos));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the read model", e);
    }
  }
}
