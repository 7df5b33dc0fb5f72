package dev.flowpipe.importer;

import dev.flowpipe.importer.config.ImporterSettings;
import dev.flowpipe.importer.cursor.CursorStore;
import dev.flowpipe.importer.cursor.PartitionCursor;
import dev.flowpipe.importer.merge.PartitionMerge;
import dev.flowpipe.importer.merge.VisibilityWatermark;
import dev.flowpipe.importer.metrics.ImporterMetrics;
import dev.flowpipe.importer.source.RawRecord;
import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.importer.source.RawRecordParser;
import dev.flowpipe.importer.source.SequenceReader;
import dev.flowpipe.importer.source.Sequences;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreUnavailableException;
import dev.flowpipe.writer.ReadModelWriter;
import dev.flowpipe.writer.config.WriterSettings;
import dev.flowpipe.writer.error.DeadLetters;
import dev.flowpipe.writer.handler.DocumentChange;
import dev.flowpipe.writer.store.BulkWriter;
import dev.flowpipe.writer.store.ExportPositionMarker;
import dev.flowpipe.writer.store.RetryPolicy;
import io.camunda.zeebe.protocol.record.ValueType;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The import of one partition, one {@link #step()} at a time on one thread: a reader per value type
 * ({@link SequenceReader}), their records merged into log order ({@link PartitionMerge}, as far as the
 * {@link VisibilityWatermark} allows), and written through the {@link ReadModelWriter} the exporter writes through
 * too (its handlers, its buffer, its {@link BulkWriter}), with the partition's cursor in the same bulk
 * ({@link CursorStore}). Memory is bounded: each reader holds at most a page, and
 * the merge stops feeding the buffer at the bulk size until it is written. After a failed read or write, nothing moves
 * on until the {@link RetryPolicy}'s back-off has passed and the same write has succeeded.
 */
public final class PartitionImport {

  private static final Logger LOG = LoggerFactory.getLogger(PartitionImport.class);

  /** The value types the read model is made of, in a fixed order. */
  public static final List<ValueType> VALUE_TYPES = List.copyOf(EnumSet.copyOf(ReadModelWriter.VALUE_TYPES));

  /** The store's task action of a bulk request (its shard-level parts are children of it). */
  private static final String BULK_ACTION = "indices:data/write/bulk";

  private final int partitionId;
  private final SearchStore source;
  private final ImporterSettings settings;
  private final InstantSource clock;
  private final List<String> patterns;
  private final List<SequenceReader> readers = new ArrayList<>();
  private final VisibilityWatermark watermark;
  private final PartitionMerge merge;
  private final ReadModelWriter readModel;
  private final BulkWriter writer;
  private final CursorStore cursors;
  private final RetryPolicy retry;
  private final ImporterMetrics metrics;
  private final boolean fresh;
  private PartitionCursor covered;
  private PartitionCursor durable;
  // the resume cursor the store holds (as far as this import knows): a confirmation is due when it lags durable
  private PartitionCursor storedResume;
  private long lastProbeMillis = -1;
  private boolean tasksUnlistedLogged;
  private long lateSeen;
  private boolean gapAlarmed;
  private volatile boolean caughtUp;
  private volatile long durableTimestamp = -1;

  public PartitionImport(int partitionId, SearchStore source, SearchStore target, ImporterSettings settings,
      InstantSource clock, MeterRegistry registry) {
    this.partitionId = partitionId;
    this.source = source;
    this.settings = settings;
    this.clock = clock;
    RawRecordIndices indices = new RawRecordIndices(settings.sourcePrefix());
    this.patterns = indices.patterns(VALUE_TYPES);
    this.metrics = new ImporterMetrics(registry, partitionId);
    this.cursors = new CursorStore(target, settings.indexPrefix());
    PartitionCursor resume = cursors.resumeOf(partitionId, VALUE_TYPES);
    this.fresh = resume.isStart();
    this.covered = resume;
    this.durable = resume;
    this.storedResume = resume;
    this.durableTimestamp = resume.lastTimestamp();
    RawRecordParser parser = new RawRecordParser();
    for (ValueType type : VALUE_TYPES) {
      SequenceReader reader = new SequenceReader(source, indices, partitionId, type, resume.sequence(type),
          settings.pageSize(), parser, clock);
      readers.add(reader);
      metrics.distance(type, reader, r -> Sequences.counter(r.lastSequence())
          - Sequences.counter(durable.sequence(type)) + r.unreadAfterPage());
    }
    this.watermark = new VisibilityWatermark(settings.visibilityGrace());
    this.merge = new PartitionMerge(readers, watermark);
    WriterSettings writing = settings.writer();
    String prefix = writing.indexPrefix();
    this.readModel = ReadModelWriter.open(writing, partitionId, clock, LOG, metrics::failure);
    DeadLetters deadLetters =
        new DeadLetters(target, prefix, partitionId, DeadLetters.MAX_COPY_CHARS, LOG, metrics::failure, clock);
    this.writer = new BulkWriter(target, deadLetters, writing.bulkRefresh(),
        new ExportPositionMarker(target, prefix, partitionId, LOG), readModel.derivedFields());
    this.retry = new RetryPolicy("importer-partition-" + partitionId, writing.retryBackoff(),
        writing.maxRetryBackoff(), clock, LOG, metrics::failure);
    metrics.status(this::lagMillis, () -> caughtUp);
    LOG.info("partition {}: importing after {}", partitionId, resume.isStart() ? "nothing (fresh)" : resume);
  }

  /**
   * One round: write what a failed write left, move the watermark, read where the merge needs it, merge, write.
   * Returns how long to wait before the next round (0: at once).
   */
  public long step() {
    if (!retry.mayAttempt()) {
      return retry.millisUntilNextAttempt();
    }
    try {
      if ((!covered.equals(durable) || !readModel.buffer().isEmpty()) && !flush()) {
        return retry.millisUntilNextAttempt();
      }
      moveWatermark();
      boolean read = readWhereNeeded();
      int merged = mergeIntoBuffer();
      if (!covered.equals(durable) && !flush()) {
        return retry.millisUntilNextAttempt();
      }
      updateCaughtUp();
      retry.succeeded();
      if (merged > 0 || read) {
        return 0;
      }
      return Math.min(settings.pollInterval().toMillis(), watermark.millisUntilCompletion(clock.millis()));
    } catch (StoreUnavailableException e) {
      caughtUp = false;
      retry.failed("partition " + partitionId + ": " + e.getMessage());
      return retry.millisUntilNextAttempt();
    }
  }

  /**
   * Takes a probe when none waits; completes the pending one once the bulks in flight at the probe have ended, or its
   * grace has passed where they cannot be listed (refreshing first).
   */
  private void moveWatermark() {
    long now = clock.millis();
    if (watermark.completionDue(now)
        && (!watermark.awaitsWrites() || watermark.writesEnded(bulksInFlight().orElse(Set.of())))) {
      for (String pattern : patterns) {
        source.refresh(pattern);
      }
      watermark.completed(clock.millis());
    }
    now = clock.millis();
    if (watermark.probeDue() && (lastProbeMillis < 0 || now - lastProbeMillis >= settings.pollInterval().toMillis())) {
      lastProbeMillis = now;
      long highest = highestSearchablePosition();
      // listed after the probe: the bulk that wrote the highest record has either ended or is listed here
      watermark.probed(highest, bulksInFlight(), now);
    }
  }

  /** The bulk requests the source store is running now; empty when it does not let the importer list them. */
  private Optional<Set<String>> bulksInFlight() {
    Optional<Set<String>> running = source.runningTasks(BULK_ACTION);
    if (running.isEmpty() && !tasksUnlistedLogged) {
      tasksUnlistedLogged = true;
      LOG.warn("partition {}: the source store does not let the importer list its tasks (it needs the cluster monitor"
          + " privilege); records are taken as searchable {} after a probe, which a slow store can exceed",
          partitionId, settings.visibilityGrace());
    }
    return running;
  }

  /** The highest position of the partition searchable now in any value type's indices, -1 for none. */
  private long highestSearchablePosition() {
    List<Criterion> criteria = List.of(new Criterion.Range("sequence", null, Sequences.of(partitionId, 1),
        Sequences.start(partitionId + 1), null));
    SearchHits hits = source.search(new SearchQuery(patterns, criteria,
        List.of(new SortField("position", true, false)), 0, 1, List.of(), List.of()));
    return hits.hits().isEmpty() || !(hits.hits().getFirst().source().get("position") instanceof Number position)
        ? -1 : position.longValue();
  }

  private boolean readWhereNeeded() {
    long now = clock.millis();
    boolean read = false;
    for (SequenceReader reader : readers) {
      boolean gapStale = reader.gap() != null && now - reader.lastReadStartMillis() >= settings.pollInterval().toMillis();
      if (merge.needsRead(reader) || (reader.isEmpty() && gapStale)) {
        read |= reader.read() > 0;
        handleGap(reader, now);
      }
    }
    return read;
  }

  /**
   * A hole proven to lie below the complete watermark is not a record that is merely not searchable yet. On a fresh
   * import, a hole before the first record is the start of a source trimmed by retention. Anywhere else the importer
   * waits: the stock exporter numbers without holes and writes a failed bulk again until it succeeds, so the record
   * comes; if it never does (deleted indices), the import of this partition stops there, and says so.
   */
  private void handleGap(SequenceReader reader, long now) {
    SequenceReader.Gap gap = reader.gap();
    if (gap == null || gap.foundPosition() > watermark.completePosition()
        || reader.lastReadStartMillis() < watermark.completedAtMillis()) {
      return;
    }
    if (fresh && Sequences.counter(reader.lastSequence()) == 0) {
      reader.acceptGapAsStart();
      return;
    }
    if (!gapAlarmed && now - gap.sinceMillis() >= settings.gapAlarm().toMillis()) {
      gapAlarmed = true;
      LOG.error("partition {} {}: record {} has not become searchable for {} ms although record {} (position {}) has;"
              + " the import of this partition waits for it", partitionId, reader.valueType(),
          gap.expectedCounter(), now - gap.sinceMillis(), gap.foundCounter(), gap.foundPosition());
    }
  }

  private int mergeIntoBuffer() {
    int merged = 0;
    while (!readModel.holdsABulk()) {
      RawRecord next = merge.next();
      if (next == null) {
        break;
      }
      if (next.readable()) {
        readModel.accept(readModel.changes(next.record()), next.position(), next.timestamp());
      } else {
        // in the bulk that moves the cursor past it: durable together, so a restart neither re-reads nor repeats it
        readModel.accept(List.of(deadLetter(next)), Math.max(next.position(), covered.lastPosition()),
            Math.max(next.timestamp(), covered.lastTimestamp()));
      }
      covered = covered.after(next);
      merged++;
    }
    if (merge.late() > lateSeen) {
      LOG.error("partition {}: {} records became searchable after later records were imported; their changes to"
          + " documents already past them are lost", partitionId, merge.late() - lateSeen);
      metrics.late(merge.late() - lateSeen);
      lateSeen = merge.late();
    }
    return merged;
  }

  /** The dead letter of a raw record that is no record; logged and counted once per read of it. */
  private DocumentChange deadLetter(RawRecord raw) {
    RawRecord.Unreadable unreadable = raw.unreadable();
    LOG.error("partition {} {}: raw record {}/{} (sequence {}, position {}) cannot be read and goes to the dead letters;"
            + " the import goes on: {}", partitionId, raw.valueType(), unreadable.index(), unreadable.id(),
        raw.sequence(), raw.position(), unreadable.reason());
    metrics.unreadable();
    return DeadLetters.forUnreadableRecord(settings.indexPrefix(), partitionId, raw.position(), unreadable.index(),
        unreadable.id(), unreadable.text(), unreadable.reason(), DeadLetters.MAX_COPY_CHARS, clock);
  }

  /** Writes the buffer with the cursor of what it covers; true when all of it is durable. */
  private boolean flush() {
    readModel.accept(List.of(cursors.change(covered, durable)), covered.lastPosition(), covered.lastTimestamp());
    BulkWriter.Result result = readModel.flush(writer);
    if (!result.complete()) {
      metrics.failure();
      retry.failed("partition " + partitionId + ": " + result.retryable() + " documents not written");
      return false;
    }
    long records = recordsBetween(durable, covered);
    durable = covered;
    durableTimestamp = durable.lastTimestamp();
    metrics.imported(records);
    return true;
  }

  /** Writes the cursor alone, with nothing left to re-read after a restart. */
  private void confirm() {
    readModel.accept(List.of(cursors.change(durable, durable)), durable.lastPosition(), durable.lastTimestamp());
    if (readModel.flush(writer).complete()) {
      storedResume = durable;
    }
  }

  private static long recordsBetween(PartitionCursor from, PartitionCursor to) {
    long count = 0;
    for (ValueType type : VALUE_TYPES) {
      count += Sequences.counter(to.sequence(type)) - Sequences.counter(from.sequence(type));
    }
    return count;
  }

  /** Caught up: everything searchable durable, and the confirmation of the cursor stored (written here when due). */
  private void updateCaughtUp() {
    boolean readersDone = true;
    for (SequenceReader reader : readers) {
      readersDone &= reader.isEmpty() && reader.atEnd() && reader.lastReadStartMillis() >= 0;
    }
    boolean allDurable = readersDone && covered.equals(durable) && watermark.probeDue()
        && watermark.completePosition() >= 0 && readModel.buffer().isEmpty();
    if (allDurable && !storedResume.equals(durable)) {
      confirm();
    }
    // caught up once the confirmation is stored too: a stop from then on reads nothing again at the next start
    caughtUp = allDurable && storedResume.equals(durable);
  }

  private double lagMillis() {
    if (caughtUp) {
      return 0;
    }
    long newest = durableTimestamp;
    return newest < 0 ? Double.NaN : Math.max(0, clock.millis() - newest);
  }

  public int partitionId() {
    return partitionId;
  }

  /** Whether everything searchable in the source for this partition is imported and durable. */
  public boolean caughtUp() {
    return caughtUp;
  }

  /** The cursor up to which everything is durable. */
  public PartitionCursor durable() {
    return durable;
  }
}
