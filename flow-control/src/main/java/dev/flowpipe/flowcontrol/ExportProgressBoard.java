package dev.flowpipe.flowcontrol;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where our exporter, running in the same process as the node's flow controller, publishes each partition's export
 * progress: the position acknowledged as durable in the store and the age of the oldest record not yet durable. The
 * exporter posts a {@link Progress} when it opens a partition and withdraws it when it closes; the controller reads it
 * through {@link #durable(int)}. One board per class loader (the node loads the exporter from its own class path).
 */
public final class ExportProgressBoard {

  /** The board of this class loader. */
  public static final ExportProgressBoard SHARED = new ExportProgressBoard();

  /** One partition's export progress, read on the controller's thread while the exporter works. */
  public interface Progress {

    /** Every record up to this position is durable in the store (-1: none yet). */
    long durablePosition();

    /** How long the oldest record not yet durable has waited (zero when none waits). */
    Duration oldestPendingAge();
  }

  private final Map<Integer, Progress> partitions = new ConcurrentHashMap<>();

  /** Publishes the partition's progress, replacing what was there (a reopened exporter). */
  public void post(int partitionId, Progress progress) {
    partitions.put(partitionId, progress);
  }

  /** Withdraws the partition's progress, if it is still this one. */
  public void withdraw(int partitionId, Progress progress) {
    partitions.remove(partitionId, progress);
  }

  /** The partition's progress, or empty when no exporter of ours runs it in this process. */
  public Optional<Progress> progress(int partitionId) {
    return Optional.ofNullable(partitions.get(partitionId));
  }

  /** The durable position, or empty when no exporter of ours runs the partition here. */
  public OptionalLong durable(int partitionId) {
    Progress progress = partitions.get(partitionId);
    return progress == null ? OptionalLong.empty() : OptionalLong.of(progress.durablePosition());
  }
}
