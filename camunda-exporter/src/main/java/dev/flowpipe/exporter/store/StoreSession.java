package dev.flowpipe.exporter.store;

import dev.flowpipe.exporter.config.ExporterConfiguration;
import dev.flowpipe.exporter.error.DeadLetters;
import dev.flowpipe.exporter.identity.LogIdentityStore;
import dev.flowpipe.exporter.metrics.ExporterMetrics;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreConnection;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;

/**
 * The exporter's connection to the store: connects on first use (the store may boot beside the broker, so a failed
 * connect is simply tried again at the next flush), makes sure the schema exists (which can mean migrating an older
 * one: minutes), reads what the store knows of the partition's log, and holds the bulk writer.
 *
 * <p>All of that runs on {@code background}, a thread of the session's own, never on the broker's actor: the actor
 * only {@link #poll}s. Whatever else the exporter asks of the store outside the bulks (recording the log's identity)
 * runs there too ({@link #background()}).
 */
public final class StoreSession implements AutoCloseable {

  /** Where a connection attempt stands, seen from the actor. */
  public enum State { CONNECTED, CONNECTING, FAILED }

  private record Connected(SearchStore store, BulkWriter writer, LogIdentityStore identities,
      LogIdentityStore.Stored stored) {}

  private final ExporterConfiguration config;
  private final int partitionId;
  private final Function<StoreConnection, SearchStore> connector;
  private final InstantSource clock;
  private final Logger log;
  private final ExporterMetrics metrics;
  private final Executor background;
  // the actor's view; the attempt completes on the background thread
  private CompletableFuture<Connected> attempt;
  private Connected connected;
  private RuntimeException lastFailure;
  private volatile boolean closed;

  public StoreSession(ExporterConfiguration config, int partitionId, Function<StoreConnection, SearchStore> connector,
      InstantSource clock, Logger log, ExporterMetrics metrics, Executor background) {
    this.config = config;
    this.partitionId = partitionId;
    this.connector = connector;
    this.clock = clock;
    this.log = log;
    this.metrics = metrics;
    this.background = background;
  }

  /**
   * Starts a connection attempt on the background thread unless one runs or the session is connected, and tells where
   * it stands; {@link State#FAILED} once per failed attempt ({@link #lastFailure()} says why), the next poll tries
   * again.
   */
  public State poll() {
    if (connected != null) {
      return State.CONNECTED;
    }
    if (attempt == null) {
      attempt = CompletableFuture.supplyAsync(this::connect, background);
    }
    if (!attempt.isDone()) {
      return State.CONNECTING;
    }
    try {
      connected = attempt.join();
      return State.CONNECTED;
    } catch (CompletionException e) {
      lastFailure = e.getCause() instanceof RuntimeException cause ? cause : e;
      attempt = null;
      return State.FAILED;
    }
  }

  /** Waits up to {@code timeout} for a connection attempt in progress to end (closing, and tests). */
  public void awaitAttempt(java.time.Duration timeout) {
    CompletableFuture<Connected> running = attempt;
    if (running == null) {
      return;
    }
    try {
      running.get(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // seen by the next poll
    }
  }

  public RuntimeException lastFailure() {
    return lastFailure;
  }

  private Connected connect() {
    SearchStore store = connector.apply(config.store());
    try {
      new SchemaManager(store, config.indexPrefix(), config.indexLayout()).ensureSchema();
      LogIdentityStore identities = new LogIdentityStore(store, config.indexPrefix(), partitionId);
      LogIdentityStore.Stored stored = identities.read();
      DeadLetters deadLetters = new DeadLetters(store, config.indexPrefix(), partitionId, DeadLetters.MAX_COPY_CHARS,
          log, metrics::deadLetter, clock);
      BulkWriter writer = new BulkWriter(store, deadLetters, config.bulkRefresh(),
          new ExportPositionMarker(store, config.indexPrefix(), partitionId, log));
      if (closed) {
        throw new IllegalStateException("closed while connecting");
      }
      log.info("exporting to {} {} at {} ({})", store.product(), store.version(), config.store().url(),
          config.flushPolicy());
      return new Connected(store, writer, identities, stored);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  public boolean connected() {
    return connected != null;
  }

  /** Whether an attempt to connect has been started and not yet seen to end by {@link #poll}. */
  public boolean attempting() {
    return connected == null && attempt != null;
  }

  /** The writer of the connected session. */
  public BulkWriter writer() {
    return connectedOrThrow().writer();
  }

  /** What the store held of the partition's log when the session connected; null before. */
  public LogIdentityStore.Stored storedIdentity() {
    return connected == null ? null : connected.stored();
  }

  /** The partition's log identity in the store; only when connected. */
  public LogIdentityStore identities() {
    return connectedOrThrow().identities();
  }

  /** The session's background thread, for other requests to the store that the actor must not wait for. */
  public Executor background() {
    return background;
  }

  private Connected connectedOrThrow() {
    if (connected == null) {
      throw new IllegalStateException("not connected");
    }
    return connected;
  }

  @Override
  public void close() {
    closed = true;
    if (connected != null) {
      connected.store().close();
      connected = null;
    } else if (attempt != null) {
      // an attempt still running closes its store itself (closed is set); one that has just ended is closed here
      attempt.thenAccept(done -> done.store().close());
    }
  }
}
