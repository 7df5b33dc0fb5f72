package dev.flowpipe.importer;

/**
 * How the importer's threads wait between rounds. Injected, so that a test can move a clock instead of waiting;
 * {@link #wakeable()} is the production one.
 */
@FunctionalInterface
public interface Pause {

  /** Waits up to {@code millis}; may return earlier. */
  void pause(long millis) throws InterruptedException;

  /** A pause that {@link Wakeable#wakeAll()} cuts short: closing ends every wait at once, no thread left asleep. */
  static Wakeable wakeable() {
    return new Wakeable();
  }

  /** Waits on a monitor until its time has passed or it is woken. */
  final class Wakeable implements Pause {

    private boolean woken;

    @Override
    public synchronized void pause(long millis) throws InterruptedException {
      long deadline = System.nanoTime() + millis * 1_000_000;
      for (long left = millis; left > 0 && !woken; left = (deadline - System.nanoTime()) / 1_000_000) {
        wait(left);
      }
    }

    /** Ends every wait now and every later one at once. */
    public synchronized void wakeAll() {
      woken = true;
      notifyAll();
    }
  }
}
