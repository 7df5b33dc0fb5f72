package dev.flowpipe.embeddedstore;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The restart decisions for one embedded store, by the times it was seen up and seen exit: pure, so tests drive it on
 * a manual clock. Not thread-safe: the supervisor calls it under its lock.
 */
final class RestartBackoff {

  private final RestartPolicy policy;
  private int attemptsInARow;
  private int restarts;
  private Instant upSince;

  RestartBackoff(RestartPolicy policy) {
    this.policy = policy;
  }

  /** The store is up (green) from {@code at}. */
  void up(Instant at) {
    upSince = at;
  }

  /**
   * The store exited at {@code at}: the wait before starting it again, or empty when the attempts are exhausted. A
   * store that had stayed up for {@code resetAfter} starts a new series of attempts.
   */
  Optional<Duration> exited(Instant at) {
    if (upSince != null && !Duration.between(upSince, at).minus(policy.resetAfter()).isNegative()) {
      attemptsInARow = 0;
    }
    upSince = null;
    if (attemptsInARow >= policy.maxAttempts()) {
      return Optional.empty();
    }
    attemptsInARow++;
    restarts++;
    return Optional.of(policy.delayBefore(attemptsInARow));
  }

  /** Restarts decided since the store was first started. */
  int restarts() {
    return restarts;
  }

  /** Restarts in the current series (since the store last stayed up for {@code resetAfter}). */
  int attemptsInARow() {
    return attemptsInARow;
  }
}
