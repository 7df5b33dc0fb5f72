package dev.flowpipe.exporter.batch;

import dev.flowpipe.schema.store.DocumentWrite;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes waiting for the next flush, with the highest record position they cover and when the oldest arrived. The
 * position is acknowledged to the broker only once the writes are durable in the store.
 */
public final class ExportBatch {

  private final List<DocumentWrite> writes = new ArrayList<>();
  private long lastPosition = -1;
  private long oldestNanos = -1;

  public void add(List<DocumentWrite> recordWrites, long position, long nowNanos) {
    if (writes.isEmpty() && !recordWrites.isEmpty()) {
      oldestNanos = nowNanos;
    }
    writes.addAll(recordWrites);
    lastPosition = Math.max(lastPosition, position);
  }

  /** A record with nothing to write still moves the position that the next flush acknowledges. */
  public void advance(long position) {
    lastPosition = Math.max(lastPosition, position);
  }

  public boolean isEmpty() {
    return writes.isEmpty();
  }

  public int size() {
    return writes.size();
  }

  public List<DocumentWrite> writes() {
    return List.copyOf(writes);
  }

  public long lastPosition() {
    return lastPosition;
  }

  /** Nanos since the oldest buffered write arrived, or 0 when empty. */
  public long ageNanos(long nowNanos) {
    return writes.isEmpty() ? 0 : nowNanos - oldestNanos;
  }

  /** Keeps only these writes (those still to be retried); the oldest-arrival time stays. */
  public void retainOnly(List<DocumentWrite> remaining) {
    writes.clear();
    writes.addAll(remaining);
  }

  public void clear() {
    writes.clear();
    oldestNanos = -1;
  }
}
