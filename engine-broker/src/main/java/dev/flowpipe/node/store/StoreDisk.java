package dev.flowpipe.node.store;

import dev.flowpipe.embeddedstore.DiskWatermarks;
import dev.flowpipe.embeddedstore.DiskWatermarks.State;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded store's disk as the store sees it: the free space of the file system holding its data, against its
 * watermarks. Read from the file system (the space OpenSearch counts as available, {@link FileStore#getUsableSpace()}),
 * not from the store's {@code _nodes/stats/fs}: the answer is there while the store is dead or restarting, costs one
 * system call instead of a request to a store that may be struggling, and is fresher than the store's own view, which
 * it renews only every 10 s; so the node holds the engine's writes before the store blocks them.
 *
 * <p>Read on demand, at most once per {@code checkInterval} by the injected clock: health and flow control ask as often
 * as they like. The state keeps the store's hysteresis (see {@link DiskWatermarks#state}).
 */
public final class StoreDisk {

  private static final Logger LOG = LoggerFactory.getLogger(StoreDisk.class);

  /** Free (usable) and total bytes of a file system. */
  public record Usage(long freeBytes, long totalBytes) {}

  /** Where the free space comes from. */
  @FunctionalInterface
  public interface Space {
    Usage now() throws IOException;

    /** The file system holding {@code directory} (which must exist). */
    static Space of(Path directory) {
      FileStore fileStore;
      try {
        fileStore = Files.getFileStore(directory);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot find the file system of the embedded store's directory " + directory, e);
      }
      return () -> new Usage(fileStore.getUsableSpace(), fileStore.getTotalSpace());
    }
  }

  /**
   * One look at the disk.
   *
   * @param freeBytes space free for the store
   * @param totalBytes size of the file system
   * @param state where it stands against the watermarks
   * @param at when it was read
   * @param error why the last read failed (the reading before it stands), null when it did not
   */
  public record Reading(long freeBytes, long totalBytes, State state, Instant at, String error) {}

  private final Space space;
  private final DiskWatermarks watermarks;
  private final Duration checkInterval;
  private final InstantSource clock;
  private Reading last;

  public StoreDisk(Space space, DiskWatermarks watermarks, Duration checkInterval, InstantSource clock) {
    this.space = space;
    this.watermarks = watermarks;
    this.checkInterval = checkInterval;
    this.clock = clock;
  }

  /** The latest reading, read anew when the last one is {@code checkInterval} old. */
  public synchronized Reading reading() {
    Instant now = clock.instant();
    if (last != null && Duration.between(last.at(), now).compareTo(checkInterval) < 0) {
      return last;
    }
    State previous = last == null ? State.OK : last.state();
    try {
      Usage usage = space.now();
      State state = watermarks.state(usage.freeBytes(), usage.totalBytes(), previous);
      if (state != previous) {
        logChange(previous, state, usage.freeBytes());
      }
      last = new Reading(usage.freeBytes(), usage.totalBytes(), state, now, null);
    } catch (IOException | RuntimeException e) {
      last = last == null
          ? new Reading(-1, -1, State.OK, now, e.toString())
          : new Reading(last.freeBytes(), last.totalBytes(), last.state(), now, e.toString());
    }
    return last;
  }

  /** Above the high watermark (or still blocked after the flood stage): the engine's writes are held at their floor. */
  public boolean aboveHighWatermark() {
    return reading().state() != State.OK;
  }

  public DiskWatermarks watermarks() {
    return watermarks;
  }

  private void logChange(State from, State to, long freeBytes) {
    switch (to) {
      case HIGH -> LOG.warn("the embedded store's disk is above its high watermark ({} bytes free; {}): the engine's"
          + " write rate is held at its floor", freeBytes, watermarks);
      case FLOOD -> LOG.warn("the embedded store's disk is above its flood-stage watermark ({} bytes free; {}): the"
          + " store refuses writes until usage is back below the high watermark; the exporter retries", freeBytes,
          watermarks);
      case OK -> LOG.info("the embedded store's disk is below its high watermark again ({} bytes free, was {})",
          freeBytes, from);
    }
  }
}
