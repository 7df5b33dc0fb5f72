package dev.flowpipe.schema.embedded;

import java.time.Duration;

/**
 * How a dead embedded store is started again: up to {@code maxAttempts} times, waiting {@code backoff} before the
 * first attempt and twice as long before each further one, at most {@code maxBackoff}. The attempts are counted anew
 * once a restarted store has stayed up for {@code resetAfter}, so a store that dies once a day is always restarted
 * while one that dies again right after each start is given up on. {@code maxAttempts} 0 never restarts it.
 *
 * @param maxAttempts restarts tried in a row before giving up (0: never restart)
 * @param backoff wait before the first restart
 * @param maxBackoff longest wait between restarts
 * @param resetAfter a store that stayed up this long has its attempts counted anew
 */
public record RestartPolicy(int maxAttempts, Duration backoff, Duration maxBackoff, Duration resetAfter) {

  public static final RestartPolicy DEFAULTS =
      new RestartPolicy(5, Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(10));

  public RestartPolicy {
    if (maxAttempts < 0) {
      throw new IllegalArgumentException("restart max-attempts must be >= 0, was " + maxAttempts);
    }
    positive("backoff", backoff);
    positive("max-backoff", maxBackoff);
    positive("reset-after", resetAfter);
    if (maxBackoff.compareTo(backoff) < 0) {
      throw new IllegalArgumentException(
          "restart max-backoff (" + maxBackoff + ") must be at least backoff (" + backoff + ")");
    }
  }

  private static void positive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("restart " + name + " must be a positive duration, was " + value);
    }
  }

  /** The wait before the {@code attempt}-th restart in a row (1 for the first). */
  public Duration delayBefore(int attempt) {
    Duration delay = backoff;
    for (int i = 1; i < attempt && delay.compareTo(maxBackoff) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(maxBackoff) > 0 ? maxBackoff : delay;
  }
}
