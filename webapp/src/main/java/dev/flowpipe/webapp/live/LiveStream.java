package dev.flowpipe.webapp.live;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * One open page's stream and what it has yet to be sent. The poller only hands it the latest positions; a writer
 * thread sends them, so a page that stops reading blocks its own writer, never the poller or the other pages. Events
 * are cumulative, so what waits is the latest positions only (coalesced: the page hears of every partition that moved
 * since its last event, in one event) and whether a keep-alive is due: a slow page costs one slot, not a queue.
 *
 * <p>A stream whose write has been under way longer than the write timeout cannot keep up: it is dropped (no more
 * events) and closed once that write returns (the server's socket write timeout ends a write that never does); the
 * browser then reconnects with its last event id and catches up in one event.
 */
final class LiveStream {

  private final SseEmitter emitter;
  private final Executor writers;
  private final Clock clock;
  private final long reconnectMillis;
  private final AtomicReference<Move> latest = new AtomicReference<>();
  private final AtomicBoolean keepAliveDue = new AtomicBoolean();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private volatile boolean dropped;
  /** The emitter was completed: nothing is written or scheduled any more. */
  private volatile boolean closed;
  /** When the write under way began (null: none under way); the poller reads it to find a stream that is stuck. */
  private volatile Instant writing;
  /** The positions this page was last sent (written by the writer thread only, one at a time). */
  private LogPositions sent;

  /**
   * @param seen the positions the page names as seen (its last event id; {@link LogPositions#NONE} for a new page)
   */
  LiveStream(SseEmitter emitter, LogPositions seen, Executor writers, Clock clock, Duration reconnectDelay) {
    this.emitter = emitter;
    this.sent = seen;
    this.writers = writers;
    this.clock = clock;
    this.reconnectMillis = reconnectDelay.toMillis();
  }

  SseEmitter emitter() {
    return emitter;
  }

  /**
   * The stream's first event, sent before the stream is handed to the poller (so on the request's thread, into the
   * emitter's buffer): a new page gets where the read model is (its baseline), a returning one what it missed, or a
   * comment that only carries the reconnect delay.
   */
  void start(LogPositions now) {
    if (!now.byPartition().isEmpty() && (sent.byPartition().isEmpty() || now.beyond(sent))) {
      if (write(positionsEvent(now, now.movedSince(sent), null))) {
        sent = now;
      }
    } else {
      write(SseEmitter.event().reconnectTime(reconnectMillis).comment("open"));
    }
  }

  /**
   * The read model moved to {@code positions}: the poller read them at {@code read} and they were searchable at
   * {@code searchable} (both sent to the page, so a client can tell where the time went; null for a stream that
   * catches up on a move made while it opened).
   */
  record Move(LogPositions positions, Instant read, Instant searchable) {

    /** This move and a later one as one: the further positions, the later one's times. */
    Move and(Move later) {
      return new Move(positions.max(later.positions), later.read, later.searchable);
    }
  }

  /** Sends the page {@code move} when it has not seen its positions; a later call before the write joins it. */
  void offer(Move move) {
    latest.accumulateAndGet(move, (waiting, now) -> waiting == null ? now : waiting.and(now));
    schedule();
  }

  /** Sends the page the comment that keeps proxies from closing an idle stream (once, however often asked). */
  void keepAlive() {
    keepAliveDue.set(true);
    schedule();
  }

  /** Whether a write has been under way for longer than {@code timeout} at {@code now}: the page is not reading. */
  boolean stuck(Instant now, Duration timeout) {
    Instant since = writing;
    return since != null && Duration.between(since, now).compareTo(timeout) > 0;
  }

  /** Sends nothing more and closes the stream once the write under way (if any) returns. */
  void drop() {
    dropped = true;
    schedule();
  }

  private void schedule() {
    if (!closed && scheduled.compareAndSet(false, true)) {
      try {
        writers.execute(this::drain);
      } catch (RejectedExecutionException e) {
        // the web app is stopping: its streams end with it
        scheduled.set(false);
      }
    }
  }

  private void drain() {
    do {
      try {
        writeWhatWaits();
      } finally {
        scheduled.set(false);
      }
      // something offered after the last look and before the flag was cleared: this writer sends it
    } while (!closed && (latest.get() != null || keepAliveDue.get() || dropped)
        && scheduled.compareAndSet(false, true));
  }

  private void writeWhatWaits() {
    while (true) {
      if (dropped) {
        closed = true;
        latest.set(null);
        keepAliveDue.set(false);
        emitter.complete();
        return;
      }
      Move move = latest.getAndSet(null);
      LogPositions positions = move == null ? null : move.positions();
      if (positions != null && (sent.byPartition().isEmpty() || positions.beyond(sent))) {
        if (!write(positionsEvent(positions, positions.movedSince(sent), move))) {
          return;
        }
        sent = positions;
      } else if (keepAliveDue.getAndSet(false)) {
        if (!write(SseEmitter.event().comment("keep-alive"))) {
          return;
        }
      } else if (positions == null) {
        return;
      }
    }
  }

  private boolean write(SseEmitter.SseEventBuilder event) {
    writing = clock.instant();
    try {
      emitter.send(event);
      return true;
    } catch (IOException | IllegalStateException e) {
      // the page went away (or the stream ended): its browser reconnects if it is still open
      dropped = true;
      closed = true;
      emitter.completeWithError(e);
      return false;
    } finally {
      writing = null;
    }
  }

  boolean dropped() {
    return dropped;
  }

  /**
   * The {@code positions} event: its id names where the read model is, its data the partitions that moved and, for a
   * move the poller found, when it read the marks and when they were searchable (epoch ms).
   */
  private SseEmitter.SseEventBuilder positionsEvent(LogPositions positions, SortedMap<Integer, Long> moved,
      Move move) {
    StringBuilder json = new StringBuilder("{\"moved\":{");
    String separator = "";
    for (Map.Entry<Integer, Long> entry : moved.entrySet()) {
      json.append(separator).append('"').append(entry.getKey()).append("\":").append(entry.getValue());
      separator = ",";
    }
    json.append('}');
    if (move != null && move.read() != null) {
      json.append(",\"read\":").append(move.read().toEpochMilli())
          .append(",\"searchable\":").append(move.searchable().toEpochMilli());
    }
    json.append('}');
    return SseEmitter.event().name("positions").id(positions.eventId()).reconnectTime(reconnectMillis)
        .data(json.toString(), MediaType.APPLICATION_JSON);
  }
}
