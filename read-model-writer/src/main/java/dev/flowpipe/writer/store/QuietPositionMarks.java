package dev.flowpipe.writer.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The export position of records acknowledged without a bulk: records that change no document (a variable document's
 * event, a command) are acknowledged at once when nothing is buffered or in flight, and no bulk marks them. Without a
 * mark, a reader waiting for such a position (read-your-writes after an operation, whose last records are often of
 * this kind) would wait until the next bulk, on a quiet node for ever. The exporter's actor notes them; on its timer it
 * hands the newest to a thread of this class, one mark at a time, coalescing those that come meanwhile.
 */
public final class QuietPositionMarks implements AutoCloseable {

  private final ExecutorService thread;
  private final AtomicBoolean marking = new AtomicBoolean();
  private long unmarked = -1; // the actor's own
  // the mark written last or being written, for awaitMarked
  private volatile Future<?> lastMark = CompletableFuture.completedFuture(null);

  public QuietPositionMarks(int partitionId) {
    this.thread = Executors.newSingleThreadExecutor(
        Thread.ofPlatform().name("flowpipe-export-mark-partition-" + partitionId).daemon().factory());
  }

  /** On the actor: {@code position} is acknowledged and no bulk will mark it. */
  public void acknowledgedWithoutBulk(long position) {
    unmarked = Math.max(unmarked, position);
  }

  /** On the actor, when nothing is buffered or in flight: marks the newest unmarked position, unless a mark runs. */
  public void markPending(BulkWriter writer) {
    if (unmarked < 0 || !marking.compareAndSet(false, true)) {
      return;
    }
    long position = unmarked;
    unmarked = -1;
    lastMark = thread.submit(() -> {
      try {
        writer.markExported(position); // versioned by position: a later bulk's mark is never moved back
      } finally {
        marking.set(false);
      }
    });
  }

  /** Whether a position waits to be marked (or is being marked). */
  public boolean pending() {
    return unmarked >= 0 || marking.get();
  }

  /** Waits (bounded) until the mark being written, if any, has been written: for tests. */
  public void awaitMarked(Duration atMost) throws InterruptedException {
    try {
      lastMark.get(atMost.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // a failed mark is written again with the next one; a slow one is the caller's to see
    }
  }

  @Override
  public void close() {
    thread.shutdown();
    try {
      thread.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
