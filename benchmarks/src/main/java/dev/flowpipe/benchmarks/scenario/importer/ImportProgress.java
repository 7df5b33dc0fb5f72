package dev.flowpipe.benchmarks.scenario.importer;

import dev.flowpipe.importer.PartitionImport;
import dev.flowpipe.importer.cursor.CursorStore;
import dev.flowpipe.importer.source.RawRecordIndices;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.SearchStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The import's progress seen from outside the importer, sampled every 250 ms: per partition the newest raw record
 * searchable in the stock indices (its position) and the importer's stored cursor (the position and engine time of the
 * newest record its durable bulks cover). A sample is caught up when every partition's cursor covers the newest raw
 * record that was searchable {@link #WINDOW_MILLIS} earlier.
 */
public final class ImportProgress implements AutoCloseable {

  /**
   * How far behind the searchable head the import may be and still count as caught up: the importer waits for a
   * visibility grace (500 ms) and polls every 100 ms before its bulk, so a live import trails the head by about a
   * second; the steady phase before any stop shows whether 2 s holds.
   */
  public static final long WINDOW_MILLIS = 2_000;
  private static final long SAMPLE_MILLIS = 250;

  /**
   * One sample, ms after the start of sampling.
   *
   * @param lagMillis now minus the engine time of the oldest partition's newest imported record
   * @param heads per partition the position of the newest searchable raw record
   * @param cursors per partition the position of the newest record the import has made durable
   */
  public record Sample(long atMillis, long lagMillis, Map<Integer, Long> heads, Map<Integer, Long> cursors) {}

  /** A partition's stored cursor: what its last bulk covers and where a restart resumes. */
  public record Cursor(long lastPosition, long resumePosition, long lastTimestamp) {}

  private final SearchStore store;
  private final List<String> rawPatterns;
  private final String cursorIndex;
  private final int partitions;
  private final long startMillis = System.currentTimeMillis();
  private final List<Sample> samples = new ArrayList<>();
  private final Thread sampler;

  public ImportProgress(SearchStore store, String stockPrefix, String importPrefix, int partitions) {
    this.store = store;
    this.rawPatterns = new RawRecordIndices(stockPrefix).patterns(PartitionImport.VALUE_TYPES);
    this.cursorIndex = CursorStore.indexName(importPrefix);
    this.partitions = partitions;
    this.sampler = Thread.ofPlatform().daemon().name("import-progress").start(this::sampleUntilInterrupted);
  }

  private void sampleUntilInterrupted() {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        sample();
        Thread.sleep(SAMPLE_MILLIS);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // a search that failed under load is a missing sample, not a result
      }
    }
  }

  private void sample() {
    Map<Integer, Long> heads = new HashMap<>();
    Map<Integer, Long> cursors = new HashMap<>();
    long oldestImported = Long.MAX_VALUE;
    for (int partition = 1; partition <= partitions; partition++) {
      heads.put(partition, head(partition));
      Optional<Cursor> cursor = cursor(partition);
      cursors.put(partition, cursor.map(Cursor::lastPosition).orElse(-1L));
      oldestImported = Math.min(oldestImported, cursor.map(Cursor::lastTimestamp).orElse(-1L));
    }
    long now = System.currentTimeMillis();
    synchronized (this) {
      samples.add(new Sample(now - startMillis, oldestImported < 0 ? -1 : now - oldestImported, heads, cursors));
    }
  }

  /** The position of the partition's newest searchable raw record, -1 for none. */
  public long head(int partition) {
    SearchHits hits = store.search(new SearchQuery(rawPatterns, List.of(new Criterion.Equals("partitionId", partition)),
        List.of(new SortField("position", true, false)), 0, 1, List.of(), List.of()));
    return hits.hits().isEmpty() ? -1 : ((Number) hits.hits().getFirst().source().get("position")).longValue();
  }

  /** The partition's stored cursor (a real-time get: the document as last written). */
  public Optional<Cursor> cursor(int partition) {
    return store.get(cursorIndex, "partition-" + partition).map(doc -> new Cursor(number(doc.get("lastPosition")),
        number(doc.get("resumePosition")), number(doc.get("lastTimestamp"))));
  }

  /** Raw records of the partition with resume < position <= last: those a restart from this cursor reads again. */
  public long recordsToReadAgain(int partition, Cursor cursor) {
    return store.search(new SearchQuery(rawPatterns, List.of(new Criterion.Equals("partitionId", partition),
        new Criterion.Range("position", cursor.resumePosition(), null, null, cursor.lastPosition())), List.of(), 0, 0,
        List.of(), List.of())).total();
  }

  private static long number(Object value) {
    return value instanceof Number n ? n.longValue() : -1;
  }

  public long millisSinceStart() {
    return System.currentTimeMillis() - startMillis;
  }

  /** The first sample at or after {@code fromMillis} that is caught up, or null if none is (yet). */
  public synchronized Sample firstCaughtUpFrom(long fromMillis) {
    for (Sample sample : samples) {
      if (sample.atMillis() >= fromMillis && caughtUp(sample)) {
        return sample;
      }
    }
    return null;
  }

  /** The share of samples between the two times that are caught up (1.0: all). */
  public synchronized double caughtUpShare(long fromMillis, long toMillis) {
    List<Sample> window = samples.stream().filter(s -> s.atMillis() >= fromMillis && s.atMillis() < toMillis).toList();
    return window.isEmpty() ? Double.NaN : (double) window.stream().filter(this::caughtUp).count() / window.size();
  }

  private boolean caughtUp(Sample sample) {
    Sample earlier = null;
    for (Sample s : samples) {
      if (s.atMillis() <= sample.atMillis() - WINDOW_MILLIS) {
        earlier = s;
      }
    }
    if (earlier == null) {
      return false;
    }
    for (var head : earlier.heads().entrySet()) {
      if (sample.cursors().getOrDefault(head.getKey(), -1L) < head.getValue()) {
        return false;
      }
    }
    return true;
  }

  public synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  @Override
  public void close() throws InterruptedException {
    sampler.interrupt();
    sampler.join(5_000);
  }
}
