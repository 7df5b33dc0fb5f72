package dev.flowpipe.writer.store;

import dev.flowpipe.schema.store.StoreUnavailableException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * When the exporter may try the store again: exponential back-off with jitter after each failure, and a circuit
 * breaker that stops attempts for {@code maxBackoff} when most recent bulks failed for want of a store, so a store
 * that is down is not hammered. All on the clock it is given (the exporter context's), so tests never sleep.
 *
 * <p>The exporter's actor asks and reports failures; bulk threads report how each bulk went ({@link #bulkSucceeded},
 * {@link #bulkFailed}), which the circuit breaker (thread-safe) records.
 */
public final class RetryPolicy {

  private final InstantSource clock;
  private final Logger log;
  private final Runnable retryCounter;
  private final IntervalFunction backoff;
  private final CircuitBreaker circuitBreaker;
  private int failedAttempts;
  private long nextAttemptMillis;

  public RetryPolicy(String name, Duration backoff, Duration maxBackoff, InstantSource clock, Logger log,
      Runnable retryCounter) {
    this.clock = clock;
    this.log = log;
    this.retryCounter = retryCounter;
    this.backoff = IntervalFunction.ofExponentialRandomBackoff(backoff.toMillis(), 2.0, 0.25, maxBackoff.toMillis());
    this.circuitBreaker =
        CircuitBreaker.of(
            name,
            CircuitBreakerConfig.custom()
                .slidingWindowSize(10)
                .minimumNumberOfCalls(5)
                .failureRateThreshold(50)
                .waitDurationInOpenState(maxBackoff)
                .permittedNumberOfCallsInHalfOpenState(1)
                .recordExceptions(StoreUnavailableException.class)
                .clock(clock.withZone(ZoneOffset.UTC))
                .build());
  }

  /** Whether the back-off after the last failure has passed. */
  public boolean mayAttempt() {
    return clock.millis() >= nextAttemptMillis;
  }

  /** Millis until {@link #mayAttempt()} (0 when it may now). */
  public long millisUntilNextAttempt() {
    return Math.max(0, nextAttemptMillis - clock.millis());
  }

  /** Whether the circuit lets a bulk go now; when it does not, backs off as after a failure. */
  public boolean tryAcquire() {
    if (circuitBreaker.tryAcquirePermission()) {
      return true;
    }
    failed("circuit open after repeated store failures");
    return false;
  }

  /** On a bulk thread: the bulk reached the store (whatever its items' outcome). */
  public void bulkSucceeded(Duration took) {
    circuitBreaker.onSuccess(took.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** On a bulk thread: the bulk failed as a whole. */
  public void bulkFailed(Duration took, Throwable failure) {
    circuitBreaker.onError(took.toNanos(), TimeUnit.NANOSECONDS, failure);
  }

  /** A flush failed: wait longer before the next attempt. */
  public void failed(String why) {
    failed(why, Long.MAX_VALUE);
  }

  /**
   * A flush failed for a reason reported elsewhere, once (the store refuses writes: see the exporter's health): wait
   * longer before the next attempt, logging each attempt only at debug level.
   */
  public void failedQuietly(String why) {
    failed(why, Long.MAX_VALUE, true);
  }

  /**
   * Connecting failed: the store may still be booting beside the broker, so retries come at least every second and
   * the circuit breaker does not count it.
   */
  public void failedToConnect(String why) {
    failed(why, 1_000);
  }

  private void failed(String why, long maxWaitMillis) {
    failed(why, maxWaitMillis, false);
  }

  private void failed(String why, long maxWaitMillis, boolean quietly) {
    failedAttempts++;
    long waitMillis = Math.min(maxWaitMillis, backoff.apply(failedAttempts));
    if (failedAttempts > 1) {
      retryCounter.run();
    }
    nextAttemptMillis = clock.millis() + waitMillis;
    if (quietly) {
      log.debug("{}; next attempt in {} ms (attempt {})", why, waitMillis, failedAttempts);
    } else {
      log.warn("{}; next attempt in {} ms (attempt {})", why, waitMillis, failedAttempts);
    }
  }

  /** A flush succeeded: the next failure starts the back-off anew. */
  public void succeeded() {
    failedAttempts = 0;
    nextAttemptMillis = 0;
  }

  /** Tries at once, whatever the back-off (closing). */
  public void attemptNow() {
    nextAttemptMillis = 0;
  }
}
