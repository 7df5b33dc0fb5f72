package dev.flowpipe.writer.batch;

import dev.flowpipe.writer.batch.BulkFlushPolicy.Reason;
import dev.flowpipe.writer.store.BulkWriter;
import dev.flowpipe.writer.store.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Batches handed from the exporter's actor to bulk threads, and positions acknowledged in log order.
 *
 * <p>Up to {@code bulksInFlight} bulks are written at once. A bulk acknowledges its batch's last position only when
 * all of the batch is durable and the bulk handed over before it has acknowledged; one that ends early waits, and the
 * earlier one acknowledges it when it ends. So the acknowledged position only moves forward, and never past a write
 * that is not durable. The actor takes ended batches back oldest first ({@link #settleEnded}); what a bulk could not
 * write goes back into the buffer.
 *
 * <p>Named conditions for handing over a batch ({@link #mayHandOver}):
 * <ul>
 *   <li>fewer than {@code bulksInFlight} bulks are being written;
 *   <li>fewer than {@link #MAX_UNSETTLED} bulks are handed over and not yet settled (bulks that ended behind a slow
 *       one keep their batches until it is settled: a hung bulk must not hold an ever longer queue in memory);
 *   <li>no bulk failed with others still in flight behind it ({@code drainingAfterFailure}): those cannot
 *       acknowledge, nor could a new one, so under steady load acknowledgement would never resume; the next bulk
 *       goes once they have ended, and carries all that is not durable;
 *   <li>no buffered document waits for a bulk in flight to read its base.
 * </ul>
 *
 * <p>Threads: the actor calls every method but {@link #write}, which runs on a bulk thread and touches only its
 * batch, the store, the listener, the retry policy's circuit breaker and the acknowledgement (under {@code ackOrder}).
 */
public final class BulkPipeline implements AutoCloseable {

  /** Bulks handed over and not yet settled, at most. */
  public static final int MAX_UNSETTLED = 32;

  /** Tells the broker that every record up to a position is durable (thread-safe). */
  @FunctionalInterface
  public interface Acknowledgement {
    void acknowledge(long position, long records);
  }

  /**
   * Told of every bulk that wrote all of its batch, on the bulk thread, before its position is acknowledged (so
   * whoever sees the position sees the bulk's timings too): the exporter's metrics.
   */
  @FunctionalInterface
  public interface BulkListener {
    void flushed(Reason reason, int documents, Duration took, long oldestRecordTimestamp);
  }

  /** A bulk whose write has ended, as the actor takes it back. */
  public record Ended(DocumentBuffer batch, boolean acknowledged, BulkWriter.Result result, RuntimeException failure,
      int documents) {
    public boolean complete() {
      return failure == null && result.complete();
    }
  }

  /** One batch handed to a bulk thread. */
  private static final class InFlight {
    final DocumentBuffer batch;
    final long oldestTimestamp;
    final long records;
    Future<Ended> outcome;
    // the rest under ackOrder: the bulk in flight before this one when it was handed over (null: none was, so this
    // batch holds every record not yet durable), the one handed over next, and how far this one got
    InFlight predecessor;
    InFlight successor;
    boolean ended;
    boolean complete;
    // also read by the lag gauges and, once ended, by the actor
    volatile boolean acknowledged;

    InFlight(DocumentBuffer batch, long oldestTimestamp) {
      this.batch = batch;
      this.oldestTimestamp = oldestTimestamp;
      this.records = batch.recordsSinceAck();
    }
  }

  private final int bulksInFlight;
  private final RetryPolicy retry;
  private final BulkListener listener;
  private final InstantSource clock;
  private final Acknowledgement acknowledgement;
  private final ExecutorService bulkThreads;
  // oldest first; only the actor changes it (see changed), and the lag gauges read the copy in view
  private final Deque<InFlight> inFlight = new ArrayDeque<>();
  private volatile List<InFlight> view = List.of();
  private List<DocumentBuffer> batches = List.of();
  private boolean drainingAfterFailure;
  // orders the acknowledgements of bulks that end out of order
  private final Object ackOrder = new Object();

  /** @param clock times each bulk (for the listener and the circuit breaker) */
  public BulkPipeline(int bulksInFlight, int partitionId, RetryPolicy retry, BulkListener listener,
      Acknowledgement acknowledgement, InstantSource clock) {
    this.bulksInFlight = bulksInFlight;
    this.clock = clock;
    this.retry = retry;
    this.listener = listener;
    this.acknowledgement = acknowledgement;
    this.bulkThreads = Executors.newFixedThreadPool(bulksInFlight,
        Thread.ofPlatform().name("flowpipe-bulk-partition-" + partitionId + "-", 0).daemon().factory());
  }

  public boolean isEmpty() {
    return inFlight.isEmpty();
  }

  /** The batches handed over and not settled, oldest first (the buffer starts later versions from them). */
  public List<DocumentBuffer> batches() {
    return batches;
  }

  /** Whether a batch taken from {@code buffer} may be handed over now (see the class comment). */
  public boolean mayHandOver(DocumentBuffer buffer) {
    if (inFlight.isEmpty()) {
      drainingAfterFailure = false;
    }
    return !drainingAfterFailure && writing() < bulksInFlight && inFlight.size() < MAX_UNSETTLED
        && !buffer.waitsForInFlight();
  }

  private int writing() {
    int writing = 0;
    for (InFlight bulk : inFlight) {
      writing += bulk.outcome.isDone() ? 0 : 1;
    }
    return writing;
  }

  /** Hands a batch to a bulk thread; {@code oldestTimestamp}: engine time of its oldest record, for the lag. */
  public void handOver(DocumentBuffer batch, long oldestTimestamp, BulkWriter writer, Reason reason) {
    InFlight bulk = new InFlight(batch, oldestTimestamp);
    synchronized (ackOrder) {
      bulk.predecessor = inFlight.peekLast();
      if (bulk.predecessor != null) {
        bulk.predecessor.successor = bulk;
      }
    }
    Instant start = clock.instant();
    bulk.outcome = bulkThreads.submit(() -> write(bulk, writer, reason, start));
    inFlight.addLast(bulk);
    changed();
  }

  private void changed() {
    view = List.copyOf(inFlight);
    batches = view.stream().map(bulk -> bulk.batch).toList();
  }

  /**
   * On a bulk thread: writes the batch; when all of it is durable and the bulk before it acknowledged its position,
   * acknowledges the batch's last position, and then those of the later bulks that had ended waiting for this one.
   */
  private Ended write(InFlight bulk, BulkWriter writer, Reason reason, Instant start) {
    DocumentBuffer batch = bulk.batch;
    int documents = batch.size();
    long oldest = batch.oldestRecordTimestamp();
    BulkWriter.Result result = null;
    RuntimeException failure = null;
    try {
      result = writer.flush(batch);
      retry.bulkSucceeded(Duration.between(start, clock.instant()));
      if (result.complete()) {
        // recorded before the acknowledgement, so whoever sees the position sees this bulk's timings too
        listener.flushed(reason, documents, Duration.between(start, clock.instant()), oldest);
      }
    } catch (RuntimeException e) {
      retry.bulkFailed(Duration.between(start, clock.instant()), e);
      failure = e;
    }
    long acknowledgedUpTo = -1;
    synchronized (ackOrder) {
      bulk.ended = true;
      bulk.complete = result != null && result.complete();
      for (InFlight next = bulk;
          next != null && next.ended && next.complete && !next.acknowledged
              && (next.predecessor == null || next.predecessor.acknowledged);
          next = next.successor) {
        acknowledgement.acknowledge(next.batch.lastPosition(), next.records);
        next.acknowledged = true;
        acknowledgedUpTo = next.batch.lastPosition();
      }
    }
    if (acknowledgedUpTo >= 0) {
      writer.markExported(acknowledgedUpTo);
    }
    return new Ended(batch, false, result, failure, documents);
  }

  /**
   * Takes back, oldest first, the batches of bulks that have ended: each is settled into {@code buffer} (what it
   * wrote into the cache, what it could not write back into the buffer) and then given to {@code onEnded}. After a
   * failed one, no batch is handed over until the bulks in flight behind it have ended.
   */
  public void settleEnded(DocumentBuffer buffer, Consumer<Ended> onEnded) {
    while (!inFlight.isEmpty() && inFlight.getFirst().outcome.isDone()) {
      InFlight bulk = inFlight.removeFirst();
      changed();
      Ended ended = outcome(bulk);
      // final here: a bulk is acknowledged before its own write returns or before its predecessor's does
      buffer.settle(bulk.batch, bulk.acknowledged, batches);
      if (!ended.complete()) {
        drainingAfterFailure = true;
      }
      onEnded.accept(ended);
    }
  }

  private static Ended outcome(InFlight bulk) {
    try {
      Ended ended = bulk.outcome.get();
      return new Ended(ended.batch(), bulk.acknowledged, ended.result(), ended.failure(), ended.documents());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Ended(bulk.batch, bulk.acknowledged, null, new IllegalStateException("interrupted"),
          bulk.batch.size());
    } catch (ExecutionException e) {
      return new Ended(bulk.batch, bulk.acknowledged, null, new IllegalStateException(e.getCause()),
          bulk.batch.size());
    }
  }

  /** Waits up to {@code timeout} for every bulk in flight to end; true when they all have. */
  public boolean awaitEnded(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (InFlight bulk : List.copyOf(inFlight)) {
      try {
        bulk.outcome.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } catch (TimeoutException e) {
        return false;
      } catch (ExecutionException e) {
        // reported when settled
      }
    }
    return true;
  }

  /** For the lag gauges (any thread): records handed over and not yet acknowledged. */
  public long unacknowledgedRecords() {
    long records = 0;
    for (InFlight bulk : view) {
      records += bulk.acknowledged ? 0 : bulk.records;
    }
    return records;
  }

  /** For the lag gauges (any thread): engine time of the oldest record handed over and not acknowledged, or -1. */
  public long oldestUnacknowledgedTimestamp() {
    for (InFlight bulk : view) {
      if (!bulk.acknowledged) {
        return bulk.oldestTimestamp;
      }
    }
    return -1;
  }

  @Override
  public void close() {
    bulkThreads.shutdownNow();
  }
}
