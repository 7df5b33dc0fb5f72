package dev.flowpipe.systemtests;

import io.camunda.zeebe.protocol.Protocol;
import java.util.ArrayList;
import java.util.List;

/**
 * When a crash run's kills came and how long each took to recover, and from that, which node run wrote a record
 * ("before kill 1", "after kill 2") by its engine time.
 */
public final class CrashTimeline {

  private final long loadStartNanos = System.nanoTime();
  private final List<Double> killedAtSeconds = new ArrayList<>();
  private final List<Long> killedAtMillis = new ArrayList<>();
  private final List<Double> recoverySeconds = new ArrayList<>();
  private long lastKillNanos;

  /** A kill now; returns its time in seconds from the start of the load. */
  public synchronized double killed() {
    lastKillNanos = System.nanoTime();
    killedAtMillis.add(System.currentTimeMillis());
    double at = round1((lastKillNanos - loadStartNanos) / 1e9);
    killedAtSeconds.add(at);
    return at;
  }

  /** The killed node is back (ready, or rejoined); returns the seconds since its kill. */
  public synchronized double recovered() {
    double after = round1((System.nanoTime() - lastKillNanos) / 1e9);
    recoverySeconds.add(after);
    return after;
  }

  /** Seconds since the last kill. */
  public synchronized double sinceKill() {
    return round1((System.nanoTime() - lastKillNanos) / 1e9);
  }

  public synchronized List<Double> killedAtSeconds() {
    return List.copyOf(killedAtSeconds);
  }

  public synchronized List<Double> recoverySeconds() {
    return List.copyOf(recoverySeconds);
  }

  /** The node run that wrote the record at {@code position} of the document's partition, by its engine time. */
  public synchronized String writtenIn(String id, long position, List<RecordFiles.Summary> recorded) {
    if (position < 0 || !id.chars().allMatch(Character::isDigit)) {
      return "-";
    }
    int partition = Protocol.decodePartitionId(Long.parseLong(id));
    long timestamp = recorded.stream().filter(r -> r.partition() == partition).findFirst()
        .map(r -> r.timestampOf(position)).orElse(-1L);
    if (timestamp < 0) {
      return "-";
    }
    int killsBefore = (int) killedAtMillis.stream().filter(killed -> killed <= timestamp).count();
    return killsBefore == 0 ? "before kill 1" : "after kill " + killsBefore;
  }

  public static double round1(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
