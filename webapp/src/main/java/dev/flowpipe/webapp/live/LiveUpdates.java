package dev.flowpipe.webapp.live;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CopyOnWriteArraySet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Tells open pages when the read model moved: one poller per web app reads the exporter's export positions (one
 * real-time multi-get per round, whatever the number of pages), and when a partition moved, refreshes the read model once and
 * hands every open stream a {@code positions} event whose id names the new positions. Pages reload on that event only,
 * so a page sends no request while nothing changes.
 *
 * <p>The poller never writes to a page: each stream has a writer of its own turn ({@link LiveStream}) holding only the
 * latest positions, so a page that stops reading delays nobody else; one whose write is stuck for longer than
 * {@code writeTimeout} is dropped and closed, and its browser reconnects.
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
  private final Executor writers;
  private final Clock clock;
  private final Duration streamTimeout;
  private final Duration reconnectDelay;
  private final Duration writeTimeout;
  private final int maxStreams;
  private final boolean refresh;
  private final Set<LiveStream> streams = new CopyOnWriteArraySet<>();
  private final ScheduledFuture<?> poller;
  private final ScheduledFuture<?> keepAlive;
  private final AtomicLong storeReads = new AtomicLong();
  private final AtomicLong polls = new AtomicLong();
  private final AtomicLong refreshes = new AtomicLong();
  private final AtomicLong stuckStreams = new AtomicLong();
  private volatile LogPositions current = LogPositions.NONE;
  private volatile boolean closed;
  private int highestPartition;

  /**
   * @param scheduler runs the poller every {@code pollInterval} and the keep-alive comments every {@code keepAlive}
   * @param writers writes to the pages, one task per stream at a time (a page that does not read holds one thread)
   * @param streamTimeout how long one stream stays open; the browser then opens the next one, resuming where it was
   * @param reconnectDelay how long a browser waits before it reconnects a dropped stream
   * @param writeTimeout how long one write to a page may be under way before the page counts as not reading
   * @param refresh whether a move is made searchable (a refresh of the read model's indices) before the pages hear
   *     of it; needless when every writer refreshes what it wrote before it marks its position
   */
  public LiveUpdates(ReadModel model, ScheduledExecutorService scheduler, Executor writers, Clock clock,
      Duration pollInterval, Duration keepAlive, Duration streamTimeout, Duration reconnectDelay,
      Duration writeTimeout, int maxStreams, boolean refresh) {
    this.model = model;
    this.writers = writers;
    this.clock = clock;
    this.streamTimeout = streamTimeout;
    this.reconnectDelay = reconnectDelay;
    this.writeTimeout = writeTimeout;
    this.maxStreams = maxStreams;
    this.refresh = refresh;
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
    SseEmitter emitter = new SseEmitter(streamTimeout.toMillis());
    LiveStream stream = new LiveStream(emitter, LogPositions.parse(lastEventId), writers, clock, reconnectDelay);
    emitter.onCompletion(() -> streams.remove(stream));
    emitter.onTimeout(() -> streams.remove(stream));
    emitter.onError(e -> streams.remove(stream));
    LogPositions startedAt = current;
    stream.start(startedAt);
    if (!stream.dropped()) {
      streams.add(stream);
      // a move the poller handed out between the first event and now did not reach this stream: it gets it now
      LogPositions now = current;
      if (now.beyond(startedAt)) {
        stream.offer(new LiveStream.Move(now, null, null));
      }
    }
    return emitter;
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

  /** How many refreshes of the read model the poller asked for so far (one per move, unless the refresh is off). */
  public long refreshes() {
    return refreshes.get();
  }

  /** How many streams were dropped so far because a write to them was stuck longer than the write timeout. */
  public long stuckStreams() {
    return stuckStreams.get();
  }

  /** One round of the poller: reads the export positions; when some moved, makes them searchable and tells the pages. */
  void poll() {
    if (streams.isEmpty()) {
      return;
    }
    polls.incrementAndGet();
    dropStuck();
    try {
      SearchStore store = model.store();
      LogPositions read = read(store);
      Instant readAt = clock.instant();
      if (!read.beyond(current)) {
        return;
      }
      if (refresh) {
        // what the export positions say is written becomes searchable before any page is told to read it
        model.refreshEntities(store);
        storeReads.incrementAndGet();
        refreshes.incrementAndGet();
      }
      current = current.max(read);
      LiveStream.Move move = new LiveStream.Move(current, readAt, clock.instant());
      for (LiveStream stream : streams) {
        stream.offer(move);
      }
    } catch (RuntimeException e) {
      // the store cannot be read now: the pages keep what they show, and hear of the next move once it can
      LOG.debug("export positions not read: {}", e.getMessage());
    }
  }

  /** Drops the streams whose page has not taken a write for longer than the write timeout: it is not reading. */
  private void dropStuck() {
    Instant now = clock.instant();
    for (LiveStream stream : streams) {
      if (stream.stuck(now, writeTimeout) && streams.remove(stream)) {
        stuckStreams.incrementAndGet();
        LOG.debug("a live stream took no write for {}: dropped, its page reconnects", writeTimeout);
        stream.drop();
      }
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
    dropStuck();
    for (LiveStream stream : streams) {
      stream.keepAlive();
    }
  }

  @Override
  public void close() {
    closed = true;
    poller.cancel(false);
    keepAlive.cancel(false);
    for (LiveStream stream : streams) {
      stream.drop();
    }
    streams.clear();
  }
}
