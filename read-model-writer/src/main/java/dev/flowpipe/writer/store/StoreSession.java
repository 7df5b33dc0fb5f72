package dev.flowpipe.writer.store;

import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.writer.config.WriterSettings;
import dev.flowpipe.writer.error.DeadLetters;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;

/**
 * A writer's connection to the store: connects on first use (the store may boot beside the broker, so a failed
 * connect is simply tried again at the next flush), makes sure the schema exists (which can mean migrating an older
 * one: minutes), reads what its user needs to know of the store before writing ({@code prepare}: the exporter reads
 * the partition's log identity), and holds the bulk writer.
 *
 * <p>All of that runs on {@code background}, a thread of the session's own, never on the caller's thread (the
 * broker's actor): the caller only {@link #poll}s. Whatever else the caller asks of the store outside the bulks
 * (recording the log's identity) runs there too ({@link #background()}).
 *
 * @param <P> what {@code prepare} read from the store
 */
public final class StoreSession<P> implements AutoCloseable {

  /** Where a connection attempt stands, seen from the actor. */
  public enum State { CONNECTED, CONNECTING, FAILED }

  private record Connected<P>(SearchStore store, BulkWriter writer, P prepared) {}

  private final WriterSettings config;
  private final int partitionId;
  private final Function<StoreConnection, SearchStore> connector;
  private final InstantSource clock;
  private final Logger log;
  private final Runnable deadLetterCounter;
  private final Function<SearchStore, P> prepare;
  private final Executor background;
  private final DerivedFields derivedFields;
  // the actor's view; the attempt completes on the background thread
  private CompletableFuture<Connected<P>> attempt;
  private Connected<P> connected;
  private RuntimeException lastFailure;
  private volatile boolean closed;

  /**
   * @param deadLetterCounter counts each document written to the dead letters
   * @param prepare on the background thread, once the schema is there: reads what the caller needs of the store
   * @param derivedFields what the bulk writer fills in ({@link dev.flowpipe.writer.ReadModelWriter#derivedFields()})
   */
  public StoreSession(WriterSettings config, int partitionId, Function<StoreConnection, SearchStore> connector,
      InstantSource clock, Logger log, Runnable deadLetterCounter, Function<SearchStore, P> prepare,
      Executor background, DerivedFields derivedFields) {
    this.config = config;
    this.derivedFields = derivedFields;
    this.partitionId = partitionId;
    this.connector = connector;
    this.clock = clock;
    this.log = log;
    this.deadLetterCounter = deadLetterCounter;
    this.prepare = prepare;
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
    CompletableFuture<Connected<P>> running = attempt;
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

  private Connected<P> connect() {
    SearchStore store = connector.apply(config.store());
    try {
      new SchemaManager(store, config.indexPrefix(), config.indexLayout()).ensureSchema();
      P prepared = prepare.apply(store);
      DeadLetters deadLetters = new DeadLetters(store, config.indexPrefix(), partitionId, DeadLetters.MAX_COPY_CHARS,
          log, deadLetterCounter, clock);
      BulkWriter writer = new BulkWriter(store, deadLetters, config.bulkRefresh(),
          new ExportPositionMarker(store, config.indexPrefix(), partitionId, log),
          derivedFields);
      if (closed) {
        throw new IllegalStateException("closed while connecting");
      }
      log.info("writing the read model to {} {} at {} ({})", store.product(), store.version(), config.store().url(),
          config.flushPolicy());
      return new Connected<>(store, writer, prepared);
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

  /** What {@code prepare} read when the session connected; null before. */
  public P prepared() {
    return connected == null ? null : connected.prepared();
  }

  /** The session's background thread, for other requests to the store that the actor must not wait for. */
  public Executor background() {
    return background;
  }

  private Connected<P> connectedOrThrow() {
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
