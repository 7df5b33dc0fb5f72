package dev.flowpipe.flowcontrol;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.ToLongFunction;

/**
 * A partition's lag samples over the last {@code length}: rates from the positions at both ends (a slow store
 * acknowledges in bursts, so a rate over one tick says little), whether the backlog grew across the window, and the
 * smallest and largest age in it. Nothing is known before the window has filled once.
 *
 * <p>The export rate is measured between acknowledgements (the samples where the durable position moved), over at
 * least the window (back to the latest acknowledgement at or before its start) and at most {@link #ACK_HORIZON}
 * windows before the latest one: a slowed store that acknowledges a large bulk every few seconds, less often than once
 * a window, reads as its true rate, not as nothing in the windows between two of its acknowledgements (which made that
 * partition ask for the floor). A silence longer than the store's usual gap lowers the rate as it goes on, and a store
 * silent for longer than the horizon reads nothing.
 *
 * <p>Not thread-safe: one per partition, fed by the control thread.
 */
public final class LagWindow {

  /** How many windows back acknowledgements count for the export rate. */
  static final int ACK_HORIZON = 3;

  private final Deque<LagSample> samples = new ArrayDeque<>();
  // the samples at which the durable position moved, within the horizon
  private final Deque<LagSample> acks = new ArrayDeque<>();
  private Duration length;

  public LagWindow(Duration length) {
    this.length = length;
  }

  public void add(LagSample sample, Duration windowLength) {
    length = windowLength;
    if (!samples.isEmpty() && sample.exported() > samples.getLast().exported()) {
      acks.addLast(sample);
      // the horizon counts back from the latest acknowledgement: a store whose gaps grew with its bulks (10 s seen)
      // still has the one before
      while (acks.getLast().nanos() - acks.getFirst().nanos() > ACK_HORIZON * length.toNanos()) {
        acks.removeFirst();
      }
    }
    samples.addLast(sample);
    // keep one sample at or before the window's start, so the window spans its whole length
    while (samples.size() > 2 && sample.nanos() - second().nanos() >= length.toNanos()) {
      samples.removeFirst();
    }
  }

  private LagSample second() {
    var it = samples.iterator();
    it.next();
    return it.next();
  }

  /** Forgets everything (the partition changed hands: its positions start anew on this node). */
  public void clear() {
    samples.clear();
    acks.clear();
  }

  /** Whether the samples span the whole window. */
  public boolean full() {
    return !samples.isEmpty() && samples.getLast().nanos() - samples.getFirst().nanos() >= length.toNanos();
  }

  public LagSample latest() {
    return samples.getLast();
  }

  private double seconds() {
    return Math.max(1e-9, (samples.getLast().nanos() - samples.getFirst().nanos()) / 1e9);
  }

  /** Records written per second over the window (0 with fewer than two samples). */
  public double writeRate() {
    return samples.size() < 2 ? 0 : Math.max(0, samples.getLast().written() - samples.getFirst().written()) / seconds();
  }

  /**
   * Records made durable per second: between the latest acknowledgement and the latest one before it at or before the
   * window's start, over that span plus the part of the silence since the latest one that exceeds the mean gap between
   * them. With no such pair within the horizon, or a silence longer than the horizon, over the window (0 with fewer
   * than two samples).
   */
  public double exportRate() {
    if (samples.size() < 2) {
      return 0;
    }
    long silence = acks.isEmpty() ? 0 : samples.getLast().nanos() - acks.getLast().nanos();
    if (acks.size() < 2 || silence > ACK_HORIZON * length.toNanos()) {
      return windowExportRate();
    }
    LagSample last = acks.getLast();
    // back to the latest acknowledgement at or before the window's start: no further back than the window where the
    // store acknowledges often (a rate that fell is seen as soon as over the window), one gap further where it does not
    long windowStart = samples.getLast().nanos() - length.toNanos();
    LagSample first = null;
    int gaps = 0;
    for (var back = acks.descendingIterator(); back.hasNext(); ) {
      LagSample ack = back.next();
      if (ack != last) {
        gaps++;
        if (ack.nanos() <= windowStart) {
          first = ack;
          break;
        }
      }
    }
    if (first == null) {
      return windowExportRate();
    }
    long span = last.nanos() - first.nanos();
    long overdue = Math.max(0, silence - span / gaps);
    return (last.exported() - first.exported()) / ((span + overdue) / 1e9);
  }

  private double windowExportRate() {
    return Math.max(0, samples.getLast().exported() - samples.getFirst().exported()) / seconds();
  }

  /**
   * When the window first saw the log written past {@code position}: the nanos of its earliest sample whose written
   * position is beyond it; empty where no sample is (or the window is empty).
   */
  public java.util.OptionalLong firstWrittenPast(long position) {
    for (LagSample sample : samples) {
      if (sample.written() > position) {
        return java.util.OptionalLong.of(sample.nanos());
      }
    }
    return java.util.OptionalLong.empty();
  }

  /** Whether the window holds no sample yet. */
  public boolean isEmpty() {
    return samples.isEmpty();
  }

  /** The nanos of the window's earliest sample (the window must not be empty). */
  public long oldestNanos() {
    return samples.getFirst().nanos();
  }

  /** The nanos of the window's latest sample (the window must not be empty). */
  public long latestNanos() {
    return samples.getLast().nanos();
  }

  /** Whether the backlog is larger now than at the window's start. */
  public boolean backlogGrew() {
    return samples.size() >= 2 && samples.getLast().backlog() > samples.getFirst().backlog();
  }

  /** The smallest value of {@code signal} over the samples taken within {@code span} of the latest one. */
  public long min(Duration span, ToLongFunction<LagSample> signal) {
    return extreme(span, signal, true);
  }

  /** The largest value of {@code signal} over the samples taken within {@code span} of the latest one. */
  public long max(Duration span, ToLongFunction<LagSample> signal) {
    return extreme(span, signal, false);
  }

  /** The mean of {@code signal} over the samples taken within {@code span} of the latest one. */
  public double mean(Duration span, ToLongFunction<LagSample> signal) {
    long from = samples.getLast().nanos() - span.toNanos();
    return samples.stream().filter(sample -> sample.nanos() >= from).mapToLong(signal).average().orElse(0);
  }

  private long extreme(Duration span, ToLongFunction<LagSample> signal, boolean smallest) {
    long from = samples.getLast().nanos() - span.toNanos();
    long result = smallest ? Long.MAX_VALUE : Long.MIN_VALUE;
    for (LagSample sample : samples) {
      if (sample.nanos() >= from) {
        long value = signal.applyAsLong(sample);
        result = smallest ? Math.min(result, value) : Math.max(result, value);
      }
    }
    return result;
  }
}
