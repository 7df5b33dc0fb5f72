package dev.flowpipe.webapp.live;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CopyOnWriteArraySet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Tells open pages when the read model moved: one poller per web app reads the exporter's export positions (one
 * real-time multi-get per round, whatever the number of pages), and when a partition moved, refreshes the read model once and
 * sends every open stream a {@code positions} event whose id names the new positions. Pages reload on that event only,
 * so a page sends no request while nothing changes.
 *
 * <p>A stream that reconnects sends its last event id ({@code Last-Event-ID}): it gets the current positions at once
 * when the read model moved meanwhile (the page reloads once and is current), nothing when it did not. The poller reads
 * the store only while a stream is open.
 */
public final class LiveUpdates implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LiveUpdates.class);
  /** How many partitions beyond the highest seen each read asks for: new ones are found in the next round. */
  private static final int PROBE = 8;

  private final ReadModel model;
  private final Duration streamTimeout;
  private final Duration reconnectDelay;
  private final int maxStreams;
  private final Set<SseEmitter> streams = new CopyOnWriteArraySet<>();
  private final ScheduledFuture<?> poller;
  private final ScheduledFuture<?> keepAlive;
  private final AtomicLong storeReads = new AtomicLong();
  private final AtomicLong polls = new AtomicLong();
  private volatile LogPositions current = LogPositions.NONE;
  private volatile boolean closed;
  private int highestPartition;

  /**
   * @param scheduler runs the poller every {@code pollInterval} and the keep-alive comments every {@code keepAlive}
   * @param streamTimeout how long one stream stays open; the browser then opens the next one, resuming where it was
   * @param reconnectDelay how long a browser waits before it reconnects a dropped stream
   */
  public LiveUpdates(ReadModel model, ScheduledExecutorService scheduler, Duration pollInterval,
      Duration keepAlive, Duration streamTimeout, Duration reconnectDelay, int maxStreams) {
    this.model = model;
    this.streamTimeout = streamTimeout;
    this.reconnectDelay = reconnectDelay;
    this.maxStreams = maxStreams;
    this.poller = scheduler.scheduleWithFixedDelay(this::poll, pollInterval.toNanos(), pollInterval.toNanos(),
        TimeUnit.NANOSECONDS);
    this.keepAlive = scheduler.scheduleWithFixedDelay(this::keepAlive, keepAlive.toNanos(), keepAlive.toNanos(),
        TimeUnit.NANOSECONDS);
  }

  /**
   * Opens a stream for a page that last saw {@code lastEventId} (null or blank: a new page).
   *
   * @throws TooManyStreamsException when {@code maxStreams} streams are open already
   * @throws LiveUpdatesClosedException once the web app stops
   */
  public SseEmitter open(String lastEventId) {
    if (closed) {
      throw new LiveUpdatesClosedException();
    }
    if (streams.size() >= maxStreams) {
      throw new TooManyStreamsException(maxStreams);
    }
    SseEmitter stream = new SseEmitter(streamTimeout.toMillis());
    stream.onCompletion(() -> streams.remove(stream));
    stream.onTimeout(() -> streams.remove(stream));
    stream.onError(e -> streams.remove(stream));
    LogPositions seen = LogPositions.parse(lastEventId);
    LogPositions now = current;
    // a new page gets where the read model is (its baseline); a returning one what it missed, or nothing
    if (!now.byPartition().isEmpty() && (seen.byPartition().isEmpty() || now.beyond(seen))) {
      send(stream, now, now.movedSince(seen));
    } else {
      send(stream, SseEmitter.event().reconnectTime(reconnectDelay.toMillis()).comment("open"));
    }
    streams.add(stream);
    return stream;
  }

  /** How many streams are open now. */
  public int openStreams() {
    return streams.size();
  }

  /** How many rounds the poller read the store in so far (rounds while no stream is open read nothing). */
  public long polls() {
    return polls.get();
  }

  /** How many requests the poller sent the store so far (multi-gets and refreshes). */
  public long storeReads() {
    return storeReads.get();
  }

  /** One round of the poller: reads the export positions; when some moved, makes them searchable and tells the pages. */
  void poll() {
    if (streams.isEmpty()) {
      return;
    }
    polls.incrementAndGet();
    try {
      SearchStore store = model.store();
      LogPositions read = read(store);
      if (!read.beyond(current)) {
        return;
      }
      // what the export positions say is written becomes searchable before any page is told to read it
      model.refreshEntities(store);
      storeReads.incrementAndGet();
      LogPositions earlier = current;
      current = current.max(read);
      SortedMap<Integer, Long> moved = current.movedSince(earlier);
      for (SseEmitter stream : streams) {
        send(stream, current, moved);
      }
    } catch (RuntimeException e) {
      // the store cannot be read now: the pages keep what they show, and hear of the next move once it can
      LOG.debug("export positions not read: {}", e.getMessage());
    }
  }

  /**
   * The export positions, in one real-time multi-get: Zeebe numbers partitions from 1 on, so the ids asked for are
   * those of partitions 1 to the highest seen and {@link #PROBE} more, which finds a new partition (or a first one)
   * without a search of the index (its marks are searchable only after the store's refresh).
   */
  private LogPositions read(SearchStore store) {
    List<String> ids = new ArrayList<>();
    for (int partition = 1; partition <= highestPartition + PROBE; partition++) {
      ids.add(ReadModelIndex.exportPositionId(partition));
    }
    Map<Integer, Long> positions = new TreeMap<>();
    store.getAll(model.index(ReadModelIndex.EXPORT_POSITION), ids).forEach((id, marker) -> {
      if (marker.get("partitionId") instanceof Number partition && marker.get("position") instanceof Number position) {
        positions.put(partition.intValue(), position.longValue());
        highestPartition = Math.max(highestPartition, partition.intValue());
      }
    });
    storeReads.incrementAndGet();
    return LogPositions.of(positions);
  }

  private void keepAlive() {
    // a comment line: proxies and load balancers see traffic, the page sees no event
    for (SseEmitter stream : streams) {
      send(stream, SseEmitter.event().comment("keep-alive"));
    }
  }

  private void send(SseEmitter stream, LogPositions positions, SortedMap<Integer, Long> moved) {
    StringBuilder json = new StringBuilder("{\"moved\":{");
    String separator = "";
    for (Map.Entry<Integer, Long> entry : moved.entrySet()) {
      json.append(separator).append('"').append(entry.getKey()).append("\":").append(entry.getValue());
      separator = ",";
    }
    json.append("}}");
    send(stream, SseEmitter.event().name("positions").id(positions.eventId())
        .reconnectTime(reconnectDelay.toMillis()).data(json.toString(), MediaType.APPLICATION_JSON));
  }

  private void send(SseEmitter stream, SseEmitter.SseEventBuilder event) {
    try {
      stream.send(event);
    } catch (IOException | IllegalStateException e) {
      // the page went away (or the stream ended): forget it; its browser reconnects if it is still open
      streams.remove(stream);
      stream.completeWithError(e);
    }
  }

  @Override
  public void close() {
    closed = true;
    poller.cancel(false);
    keepAlive.cancel(false);
    for (SseEmitter stream : streams) {
      stream.complete();
    }
    streams.clear();
  }
}
