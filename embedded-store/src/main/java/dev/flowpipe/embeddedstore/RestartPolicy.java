package dev.flowpipe.embeddedstore;

import static dev.flowpipe.settings.SettingRules.positive;
import static dev.flowpipe.settings.SettingRules.print;

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

  /** The defaults, written once here: the node's settings take theirs from them ({@code DEFAULT_BACKOFF_SECONDS + "s"}). */
  public static final int DEFAULT_MAX_ATTEMPTS = 5;

  public static final int DEFAULT_BACKOFF_SECONDS = 1;
  public static final int DEFAULT_MAX_BACKOFF_SECONDS = 30;
  public static final int DEFAULT_RESET_AFTER_MINUTES = 10;
  public static final RestartPolicy DEFAULTS = new RestartPolicy(DEFAULT_MAX_ATTEMPTS,
      Duration.ofSeconds(DEFAULT_BACKOFF_SECONDS), Duration.ofSeconds(DEFAULT_MAX_BACKOFF_SECONDS),
      Duration.ofMinutes(DEFAULT_RESET_AFTER_MINUTES));

  public RestartPolicy {
    validate("restart.", maxAttempts, backoff, maxBackoff, resetAfter);
  }

  /**
   * A policy from settings under {@code keyPrefix} (e.g. {@code flowpipe.store.embedded.restart.}): the one place its
   * rules are checked, failing with a message that names the full key and the value.
   */
  public static RestartPolicy of(String keyPrefix, int maxAttempts, Duration backoff, Duration maxBackoff,
      Duration resetAfter) {
    validate(keyPrefix, maxAttempts, backoff, maxBackoff, resetAfter);
    return new RestartPolicy(maxAttempts, backoff, maxBackoff, resetAfter);
  }

  private static void validate(String prefix, int maxAttempts, Duration backoff, Duration maxBackoff,
      Duration resetAfter) {
    if (maxAttempts < 0) {
      throw new IllegalArgumentException(prefix + "max-attempts must be >= 0, was " + maxAttempts);
    }
    positive(prefix + "backoff", backoff);
    positive(prefix + "max-backoff", maxBackoff);
    positive(prefix + "reset-after", resetAfter);
    if (maxBackoff.compareTo(backoff) < 0) {
      throw new IllegalArgumentException(prefix + "max-backoff must be at least " + prefix + "backoff ("
          + print(backoff) + "), was " + print(maxBackoff));
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
