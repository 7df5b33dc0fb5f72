package dev.flowpipe.importer.source;

import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.RequestTooLargeException;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.protocol.record.ValueType;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one partition's raw records of one value type in sequence order, a page at a time, after the last record it
 * took. It keeps only the run of consecutive counters: the stock exporter numbers a partition's records of a value type
 * without holes, so a missing counter is a record that is not searchable yet (written but not refreshed, or in a bulk
 * the stock exporter is still retrying), and the reader stops before it and tries again later. It never steps over a
 * missing counter by itself; only its owner may accept the first record of a fresh import as the start of the stream
 * (see {@link #acceptGapAsStart()}).
 *
 * <p>A page the store refuses as too large is halved until it passes. Searches go to every day's index of the value
 * type at once ({@link RawRecordIndices#pattern}), so a day's rollover needs nothing.
 */
public final class SequenceReader implements RecordSource {

  private static final Logger LOG = LoggerFactory.getLogger(SequenceReader.class);

  /** A hole in the counters: the reader waits at {@code expectedCounter}, the store already has {@code foundCounter}. */
  public record Gap(long expectedCounter, long foundCounter, long foundPosition, long sinceMillis) {}

  private final SearchStore store;
  private final String pattern;
  private final int partitionId;
  private final ValueType valueType;
  private final RawRecordParser parser;
  private final InstantSource clock;
  private final ArrayDeque<RawRecord> buffered = new ArrayDeque<>();
  private int pageSize;
  private long lastSequence;
  private long lastReadStartMillis = -1;
  private long unreadAfterPage;
  private Gap gap;

  /**
   * @param afterSequence the sequence of the last record already imported ({@link Sequences#start} for none)
   */
  public SequenceReader(SearchStore store, RawRecordIndices indices, int partitionId, ValueType valueType,
      long afterSequence, int pageSize, RawRecordParser parser, InstantSource clock) {
    if (Sequences.partition(afterSequence) != partitionId) {
      throw new IllegalArgumentException("sequence " + afterSequence + " is not of partition " + partitionId);
    }
    if (pageSize < 1) {
      throw new IllegalArgumentException("page size must be >= 1, was " + pageSize);
    }
    this.store = store;
    this.pattern = indices.pattern(valueType);
    this.partitionId = partitionId;
    this.valueType = valueType;
    this.parser = parser;
    this.clock = clock;
    this.pageSize = pageSize;
    this.lastSequence = afterSequence;
  }

  /**
   * Reads the next page after the last record taken into the buffer and keeps its consecutive run. Returns how many
   * records it added.
   *
   * @throws dev.flowpipe.schema.store.StoreUnavailableException when the store cannot be reached
   */
  public int read() {
    long startMillis = clock.millis();
    SearchHits hits = search();
    long expected = Sequences.counter(lastSequence) + 1;
    int added = 0;
    Gap found = null;
    for (SearchHits.Hit hit : hits.hits()) {
      RawRecord raw = parser.parse(hit.index(), hit.id(), valueType, hit.source());
      if (raw.counter() < expected) {
        // a second record under a counter already taken: only a stock exporter that lost its metadata does this
        LOG.warn("partition {} {}: record at position {} repeats sequence {}; ignored", partitionId, valueType,
            raw.position(), raw.sequence());
        continue;
      }
      if (raw.counter() > expected) {
        found = new Gap(expected, raw.counter(), raw.position(), gap != null && gap.expectedCounter() == expected
            ? gap.sinceMillis() : startMillis);
        break;
      }
      buffered.add(raw);
      lastSequence = raw.sequence();
      expected++;
      added++;
    }
    gap = found;
    unreadAfterPage = Math.max(0, hits.total() - hits.hits().size());
    lastReadStartMillis = startMillis;
    return added;
  }

  private SearchHits search() {
    while (true) {
      SearchQuery query = new SearchQuery(
          List.of(pattern),
          List.of(new Criterion.Range("sequence", lastSequence, null, Sequences.start(partitionId + 1), null)),
          List.of(SortField.ascending("sequence")), 0, pageSize, List.of(), List.of());
      try {
        return store.search(query);
      } catch (RequestTooLargeException e) {
        if (pageSize == 1) {
          throw e;
        }
        pageSize = Math.max(1, pageSize / 2);
        LOG.warn("partition {} {}: the store refused a page as too large; reading {} records at a time from now on",
            partitionId, valueType, pageSize);
      }
    }
  }

  /**
   * Takes the gap as the start of the stream: the counters below it will never come (a source trimmed by retention
   * before this import began). Only for a fresh import, decided by the owner.
   */
  public void acceptGapAsStart() {
    if (gap == null) {
      throw new IllegalStateException("no gap to accept");
    }
    LOG.warn("partition {} {}: the source starts at counter {}; counters {} to {} are not in it", partitionId,
        valueType, gap.foundCounter(), gap.expectedCounter(), gap.foundCounter() - 1);
    lastSequence = Sequences.of(partitionId, gap.foundCounter() - 1);
    gap = null;
  }

  @Override
  public RawRecord peek() {
    return buffered.peekFirst();
  }

  @Override
  public RawRecord take() {
    return buffered.pollFirst();
  }

  @Override
  public boolean isEmpty() {
    return buffered.isEmpty();
  }

  public int buffered() {
    return buffered.size();
  }

  /** Clock millis at which the last completed read started (-1 before the first): it saw what was searchable then. */
  @Override
  public long lastReadStartMillis() {
    return lastReadStartMillis;
  }

  /** The hole the last read stopped at, or null. */
  @Override
  public Gap gap() {
    return gap;
  }

  @Override
  public boolean moreUnread() {
    return gap == null && unreadAfterPage > 0;
  }

  /** Records after the last page that the last read counted but did not return (the rest of a backlog). */
  public long unreadAfterPage() {
    return unreadAfterPage;
  }

  /** Whether nothing was found after the last record the reader holds or gave out: no gap, nothing unread. */
  public boolean atEnd() {
    return gap == null && unreadAfterPage == 0;
  }

  public int pageSize() {
    return pageSize;
  }

  public ValueType valueType() {
    return valueType;
  }

  public long lastSequence() {
    return lastSequence;
  }
}
