package dev.flowpipe.benchmarks.scenario.ramp;

import java.util.List;
import dev.flowpipe.benchmarks.load.LoadWindow;
import dev.flowpipe.benchmarks.load.LoadResult;

/**
 * One step of a throughput ramp and its verdict; {@code refusedByFlowControl}: of the step's rejected commands, those the
 * node's write limit refused (the rest were the broker's request limiter's).
 *
 * <ul>
 *   <li><b>Sustained backpressure</b>: at least one command rejected (RESOURCE_EXHAUSTED) in each of the last
 *       {@link #SUSTAINED_WINDOWS} one-second windows of the step's load; a burst of rejections that the node recovers
 *       from within the step is not sustained. The ramp stops here.
 *   <li><b>Fell behind</b>: the node completed fewer than {@link #KEEP_UP_SHARE} of the offered rate over the second
 *       half of the step, or a start was held back at the client's in-flight limit, or a create timed out: the node
 *       is saturated even without rejecting. The ramp stops here too.
 *   <li><b>Clean</b>: no command rejected in the whole step, none held back, none timed out, no other error, every
 *       instance finished, and it kept up. The ramp's result is the highest clean rate.
 * </ul>
 */
public record RampStep(double rate, LoadResult result, long refusedByFlowControl) {

  public static final int SUSTAINED_WINDOWS = 3;
  public static final double KEEP_UP_SHARE = 0.9;

  public enum Verdict {
    CLEAN,
    /** rejections in the step, not sustained; the ramp goes on */
    TRANSIENT_BACKPRESSURE,
    SUSTAINED_BACKPRESSURE,
    FELL_BEHIND,
    /** errors other than backpressure, or instances that never finished, without backpressure or falling behind */
    ERRORS
  }

  public boolean sustainedBackpressure() {
    List<LoadWindow> load = result.loadWindows();
    if (load.size() < SUSTAINED_WINDOWS) {
      return false;
    }
    return load.subList(load.size() - SUSTAINED_WINDOWS, load.size()).stream().allMatch(w -> w.rejected() > 0);
  }

  /** Completions per second over the second half of the step's load windows. */
  public double completedPerSecondLateInStep() {
    List<LoadWindow> load = result.loadWindows();
    List<LoadWindow> late = load.subList(load.size() / 2, load.size());
    return late.isEmpty() ? 0 : late.stream().mapToLong(LoadWindow::completed).sum() / (double) late.size();
  }

  public boolean fellBehind() {
    return completedPerSecondLateInStep() < KEEP_UP_SHARE * rate
        || result.total(LoadWindow::heldBack) > 0
        || result.total(LoadWindow::createTimedOut) > 0;
  }

  public Verdict verdict() {
    if (sustainedBackpressure()) {
      return Verdict.SUSTAINED_BACKPRESSURE;
    }
    if (fellBehind()) {
      return Verdict.FELL_BEHIND;
    }
    if (result.total(LoadWindow::rejected) > 0) {
      return Verdict.TRANSIENT_BACKPRESSURE;
    }
    if (result.total(LoadWindow::errors) > 0 || result.notFinished() > 0) {
      return Verdict.ERRORS;
    }
    return Verdict.CLEAN;
  }

  /** Whether the ramp stops after this step. */
  public boolean endsRamp() {
    return verdict() == Verdict.SUSTAINED_BACKPRESSURE || verdict() == Verdict.FELL_BEHIND;
  }

  /** The highest rate of the steps judged clean; 0 if none was. */
  public static double highestCleanRate(List<RampStep> steps) {
    return steps.stream().filter(s -> s.verdict() == Verdict.CLEAN).mapToDouble(RampStep::rate).max().orElse(0);
  }
}
