package dev.flowpipe.schema.index;

import dev.flowpipe.schema.lease.StoreLease;
import dev.flowpipe.schema.store.BulkOutcome;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoredDocument;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a read model of the previous schema version ({@link PreviousSchema}) into this build's, in place: creates the
 * shared index without its aliases, copies every document into it, adds the entities' aliases in one atomic step,
 * checks the counts, and only then deletes the older indices. One process migrates ({@link StoreLease}); the
 * others wait for it.
 *
 * <p>Resuming after a crash starts the copy again from the first document, and that is correct: each copy is written
 * with external versioning at the document's own version (its log position), so a document copied before is refused
 * as already there (409), and a copy never overwrites a document a newer exporter has written since. Nothing is
 * deleted before the new version holds every document.
 */
final class SchemaMigration {

  private static final Logger LOG = LoggerFactory.getLogger(SchemaMigration.class);

  /**
   * How a migration runs.
   *
   * @param pageSize documents read and written per request
   * @param leaseExpiry how long a holder may stay silent before another process takes the migration over
   * @param poll how often a waiting process looks again
   * @param progressLogInterval the least time between two progress lines in the log
   * @param clock time for the lease and the log
   * @param pause how a waiting process waits (Thread.sleep in production; a clock advance in tests)
   */
  record Settings(int pageSize, Duration leaseExpiry, Duration poll, Duration progressLogInterval, Clock clock,
      Pause pause) {

    Settings {
      if (pageSize < 1) {
        throw new IllegalArgumentException("migration page size must be >= 1, was " + pageSize);
      }
      for (Duration duration : List.of(leaseExpiry, poll, progressLogInterval)) {
        if (duration.isNegative() || duration.isZero()) {
          throw new IllegalArgumentException("migration durations must be > 0, was " + duration);
        }
      }
      Objects.requireNonNull(clock, "clock");
      Objects.requireNonNull(pause, "pause");
    }

    /** The defaults on {@code clock}; a waiting process really waits (the one place the migration sleeps). */
    static Settings defaults(Clock clock) {
      return new Settings(1000, Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(5),
          clock, duration -> Thread.sleep(duration));
    }
  }

  /** Waits; interruptible. */
  @FunctionalInterface
  interface Pause {
    void pause(Duration duration) throws InterruptedException;
  }

  private final SearchStore store;
  private final String prefix;
  private final IndexLayout layout;
  private final Settings settings;
  private final MigrationProgress progress;
  private final PreviousSchema previous;
  private final StoreLease lease;

  private long copied;
  private long total;
  private Instant lastLogged;

  SchemaMigration(SearchStore store, String prefix, IndexLayout layout, Settings settings, MigrationProgress progress) {
    this.store = store;
    this.prefix = prefix;
    this.layout = layout;
    this.settings = settings;
    this.progress = progress;
    this.previous = new PreviousSchema(store, prefix);
    String owner = ProcessHandle.current().pid() + "/" + UUID.randomUUID().toString().substring(0, 8);
    this.lease = new StoreLease(store, markerIndexName(prefix), "v" + PreviousSchema.VERSION + "-to-v"
        + ReadModelIndex.SCHEMA_VERSION, owner, settings.clock(), settings.leaseExpiry());
  }

  /** The index holding the migration's marker document, e.g. {@code flowpipe-schema-migration}. */
  static String markerIndexName(String prefix) {
    return prefix + "-schema-migration";
  }

  /** Migrates if anything of the previous version is left, or waits for the process that does. */
  void runIfNeeded() {
    if (!previous.present()) {
      return;
    }
    store.createIndex(markerIndexName(prefix), StoreLease.indexBody(layout.replicas()));
    try {
      while (previous.present()) {
        if (lease.tryClaim(progressDetails())) {
          migrate();
          return;
        }
        if (progress.snapshot().state() != MigrationProgress.State.WAITING) {
          progress.update(MigrationProgress.State.WAITING, 0, 0, null);
          LOG.info("read model of schema version {} found; another process migrates it, waiting",
              PreviousSchema.VERSION);
        }
        settings.pause().pause(settings.poll());
      }
      progress.update(MigrationProgress.State.MIGRATED, 0, 0, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw fail(new IllegalStateException("interrupted while waiting for the schema migration", e));
    } catch (RuntimeException e) {
      throw fail(e);
    }
  }

  private RuntimeException fail(RuntimeException e) {
    progress.update(MigrationProgress.State.FAILED, copied, total, e.getMessage());
    LOG.error("schema migration from version {} to {} stopped after {} of {} documents; the next start resumes it",
        PreviousSchema.VERSION, ReadModelIndex.SCHEMA_VERSION, copied, total, e);
    return e;
  }

  private void migrate() {
    List<String> sources = previous.existingIndices();
    total = 0;
    for (String source : sources) {
      total += store.count(source);
    }
    copied = 0;
    lastLogged = settings.clock().instant();
    progress.update(MigrationProgress.State.MIGRATING, 0, total, null);
    LOG.info("migrating the read model from schema version {} to {}: {} documents in {}", PreviousSchema.VERSION,
        ReadModelIndex.SCHEMA_VERSION, total, sources);
    String shared = ReadModelIndex.sharedIndexName(prefix);
    store.createIndex(shared, ReadModelIndex.sharedIndexBody(prefix, layout, false));
    for (ReadModelIndex entity : ReadModelIndex.entities()) {
      previous.existing(entity).ifPresent(source -> copyEntity(source, entity, shared));
    }
    previous.existing(ReadModelIndex.DEAD_LETTER).ifPresent(this::copyDeadLetters);
    lease.renew(progressDetails());
    store.updateAliases(ReadModelIndex.aliasActions(prefix));
    checkEveryDocumentArrived();
    lease.renew(progressDetails());
    for (String source : sources) {
      store.deleteIndex(source);
    }
    lease.finish(progressDetails());
    progress.update(MigrationProgress.State.MIGRATED, copied, total, null);
    LOG.info("read model migrated to schema version {}: {} documents; deleted {}", ReadModelIndex.SCHEMA_VERSION,
        copied, sources);
  }

  private void copyEntity(String source, ReadModelIndex entity, String shared) {
    store.scan(source, settings.pageSize(), page -> {
      List<DocumentWrite> writes = page.stream()
          .map(document -> new DocumentWrite(
              shared, entity.storedId(document.id()), document.version(), entity.storedSource(document.source())))
          .toList();
      BulkOutcome outcome = store.bulk(writes);
      if (!outcome.failures().isEmpty()) {
        throw new IllegalStateException("copying " + source + " into " + shared + " failed for "
            + outcome.failures().size() + " document(s), e.g. " + outcome.failures().getFirst().reason());
      }
      pageCopied(page.size());
    });
  }

  /** Dead letters carry no version of their own: copied as they are, a second copy replaces the first. */
  private void copyDeadLetters(String source) {
    String target = ReadModelIndex.DEAD_LETTER.indexName(prefix);
    store.createIndex(target, ReadModelIndex.DEAD_LETTER.body(layout));
    store.scan(source, settings.pageSize(), page -> {
      for (StoredDocument document : page) {
        store.put(target, document.id(), document.source());
      }
      pageCopied(page.size());
    });
  }

  /** What the lease marker records of the migration's progress. */
  private Map<String, Object> progressDetails() {
    return Map.of("copied", copied, "total", total);
  }

  private void pageCopied(int documents) {
    copied += documents;
    progress.update(MigrationProgress.State.MIGRATING, copied, total, null);
    lease.renew(progressDetails());
    Instant now = settings.clock().instant();
    if (!Duration.between(lastLogged, now).minus(settings.progressLogInterval()).isNegative()) {
      lastLogged = now;
      LOG.info("schema migration: {} of {} documents copied", copied, total);
    }
  }

  /** Each entity's alias must count at least the documents its older index holds before that one is deleted. */
  private void checkEveryDocumentArrived() {
    for (ReadModelIndex index : ReadModelIndex.values()) {
      var source = previous.existing(index);
      if (source.isPresent()) {
        store.refresh(index.physicalIndexName(prefix));
        long before = store.count(source.get());
        long after = store.count(index.indexName(prefix));
        if (after < before) {
          throw new IllegalStateException("after copying, " + index.indexName(prefix) + " holds " + after
              + " documents but " + source.get() + " holds " + before + "; the older index is kept");
        }
      }
    }
  }
}
