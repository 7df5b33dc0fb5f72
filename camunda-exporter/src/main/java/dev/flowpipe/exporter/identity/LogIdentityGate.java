package dev.flowpipe.exporter.identity;

import dev.flowpipe.exporter.config.OnForeignStore;
import dev.flowpipe.exporter.health.ExporterHealth;
import java.time.InstantSource;
import java.util.Optional;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;

/**
 * Holds the exporter back until it knows that the store's read model of its partition comes from the broker's log
 * ({@link LogIdentityCheck}): nothing is written or acknowledged before, and every acknowledgement after carries the
 * log's id as the exporter's metadata. A foreign store is refused (health DOWN naming both logs, records left
 * unacknowledged in the log) or, with {@link OnForeignStore#WIPE_READ_MODEL}, the partition's read model is deleted
 * and this log's written anew. Never silently: both are logged.
 *
 * <p>Runs on the exporter's actor; what it asks of the store (recording the identity, wiping) runs on the session's
 * background thread, so the actor never waits on the store.
 */
public final class LogIdentityGate {

  /** The setting that reconciles, as the message names it. */
  public static final String WAY_OUT = "To keep the store's read model and refuse this log, change nothing; to delete"
      + " the partition's read model and export this log instead, set the exporter argument on-foreign-store to"
      + " wipe-read-model (in the node: flowpipe.exporter.on-foreign-store=wipe-read-model); or point the exporter at"
      + " another index prefix or store.";

  private enum State { WAITING, PREPARING, READY, REFUSED }

  private final int partitionId;
  private final OnForeignStore onForeignStore;
  private final Optional<String> known;
  private final long brokerPosition;
  private final ExporterHealth health;
  private final InstantSource clock;
  private final Logger log;
  private volatile State state = State.WAITING;
  private volatile byte[] metadata;
  // completed when what the store was asked to do has ended (the gate is then ready or waiting again)
  private volatile CompletableFuture<Void> prepared = CompletableFuture.completedFuture(null);
  private long firstPosition = -1;
  private long firstTimestamp;

  /**
   * @param known the log id in the exporter's metadata as the broker handed it at opening
   * @param brokerPosition the exporter's last acknowledged position as the broker handed it at opening
   */
  public LogIdentityGate(int partitionId, OnForeignStore onForeignStore, Optional<String> known, long brokerPosition,
      ExporterHealth health, InstantSource clock, Logger log) {
    this.partitionId = partitionId;
    this.onForeignStore = onForeignStore;
    this.known = known;
    this.brokerPosition = brokerPosition;
    this.health = health;
    this.clock = clock;
    this.log = log;
  }

  /** Notes the first record handed over since opening: it decides when the broker lost the log's id. */
  public void recordArrived(long position, long timestamp) {
    if (firstPosition < 0) {
      firstPosition = position;
      firstTimestamp = timestamp;
    }
  }

  /**
   * Decides, once the first record has arrived and the store's side has been read ({@code stored} non-null), and
   * starts on {@code background} what the decision asks of the store.
   */
  public void advance(LogIdentityStore.Stored stored, LogIdentityStore identities, Executor background) {
    if (state != State.WAITING || firstPosition < 0 || stored == null) {
      return;
    }
    var decision = LogIdentityCheck.decide(partitionId, known, stored.identity(), stored.exportPosition(),
        brokerPosition, firstPosition, firstTimestamp, () -> UUID.randomUUID().toString(), WAY_OUT);
    switch (decision) {
      case LogIdentityCheck.Decision.Same same -> ready(same.identity());
      case LogIdentityCheck.Decision.First first -> prepare(background, () -> record(identities, first.identity(), false));
      case LogIdentityCheck.Decision.Foreign foreign when onForeignStore == OnForeignStore.WIPE_READ_MODEL -> {
        log.warn("{} on-foreign-store is wipe-read-model: deleting partition {}'s read model, then exporting this log",
            foreign.message(), partitionId);
        LogIdentity identity = new LogIdentity(known.orElseGet(() -> UUID.randomUUID().toString()), partitionId,
            firstPosition, firstTimestamp);
        prepare(background, () -> record(identities, identity, true));
      }
      case LogIdentityCheck.Decision.Foreign foreign -> {
        state = State.REFUSED;
        health.down(foreign.message());
      }
    }
  }

  private void prepare(Executor background, Runnable task) {
    state = State.PREPARING;
    CompletableFuture<Void> done = new CompletableFuture<>();
    prepared = done;
    background.execute(() -> {
      try {
        task.run();
      } finally {
        done.complete(null);
      }
    });
  }

  /** Waits up to {@code timeout} for what the store was asked to do to end (closing, and tests). */
  public void awaitPrepared(Duration timeout) {
    try {
      prepared.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // still preparing: the caller goes on without
    }
  }

  /** On the background thread: wipes if asked, records the identity, and opens the gate (or lets it decide again). */
  private void record(LogIdentityStore identities, LogIdentity identity, boolean wipe) {
    try {
      if (wipe) {
        long deleted = identities.wipeReadModel();
        log.warn("partition {}: deleted {} documents of the read model of the store's former log", partitionId,
            deleted);
      }
      identities.write(identity, clock.instant());
      log.info("partition {}: the read model comes from {}", partitionId, identity.describe());
      ready(identity);
    } catch (RuntimeException e) {
      log.warn("partition {}: recording the log's identity in the store failed, tried again: {}", partitionId,
          e.getMessage());
      state = State.WAITING;
    }
  }

  private void ready(LogIdentity identity) {
    metadata = identity.metadata();
    state = State.READY;
  }

  /** Whether the exporter may write and acknowledge. */
  public boolean ready() {
    return state == State.READY;
  }

  /** Whether the exporter refuses the store (until it is opened again with another setting or store). */
  public boolean refused() {
    return state == State.REFUSED;
  }

  /** The exporter metadata to acknowledge with; only when {@link #ready()}. */
  public byte[] metadata() {
    return metadata;
  }
}
