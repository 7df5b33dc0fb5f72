package dev.flowpipe.importer.merge;

import dev.flowpipe.importer.source.RawRecord;
import dev.flowpipe.importer.source.RecordSource;
import java.util.List;

/**
 * A partition's records of every value type, merged into log order, as far as it is known that nothing below is still
 * coming: the next record is the lowest head of the sources, given out only if it is within the complete
 * {@link VisibilityWatermark} and every source without records in hand has read since the watermark completed (so its
 * next record, when it comes, lies above the watermark). A source stopped at a hole its records prove lies below the
 * watermark stops the merge: a record that should be searchable is not (see the watermark's exception).
 */
public final class PartitionMerge {

  private final List<? extends RecordSource> sources;
  private final VisibilityWatermark watermark;
  private long lastPosition = -1;
  private long late;

  public PartitionMerge(List<? extends RecordSource> sources, VisibilityWatermark watermark) {
    this.sources = List.copyOf(sources);
    this.watermark = watermark;
  }

  /** The next record in log order, or null while that cannot be known yet. */
  public RawRecord next() {
    long complete = watermark.completePosition();
    if (complete < 0) {
      return null;
    }
    RecordSource lowest = null;
    for (RecordSource source : sources) {
      if (!source.isEmpty() && (lowest == null || source.peek().position() < lowest.peek().position())) {
        lowest = source;
      }
    }
    if (lowest == null || lowest.peek().position() > complete) {
      return null;
    }
    for (RecordSource source : sources) {
      if (source.isEmpty() && !passedWatermark(source, complete)) {
        return null;
      }
    }
    RawRecord next = lowest.take();
    if (next.readable() && next.position() < lastPosition) {
      late++; // (an unreadable record's position may be unknown: it changes no document anyway)
    }
    lastPosition = Math.max(lastPosition, next.position());
    return next;
  }

  /**
   * Whether this empty source has nothing more up to the complete watermark: it has read since the watermark completed,
   * and found its end there, or a hole it cannot prove lies below the watermark.
   */
  private boolean passedWatermark(RecordSource source, long complete) {
    if (source.lastReadStartMillis() < watermark.completedAtMillis() || source.moreUnread()) {
      return false;
    }
    var gap = source.gap();
    return gap == null || gap.foundPosition() > complete;
  }

  /**
   * Whether the source must be read before the merge can go on: it is empty, and has not read since the watermark
   * completed or left records unread.
   */
  public boolean needsRead(RecordSource source) {
    return source.isEmpty()
        && (source.lastReadStartMillis() < watermark.completedAtMillis() || source.moreUnread());
  }

  /** Records given out below one given out before (see {@link VisibilityWatermark}'s exception). */
  public long late() {
    return late;
  }

  /** The highest position given out, -1 before the first. */
  public long lastPosition() {
    return lastPosition;
  }
}
