package dev.flowpipe.embeddedstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The restart decisions, on a clock the test moves. */
class RestartBackoffTest {

  private static final RestartPolicy POLICY =
      new RestartPolicy(4, Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofMinutes(10));

  private Instant now = Instant.parse("2026-11-27T12:00:00Z");
  private final RestartBackoff backoff = new RestartBackoff(POLICY);

  private Optional<Duration> diesAfter(Duration up) {
    backoff.up(now);
    now = now.plus(up);
    return backoff.exited(now);
  }

  @Nested
  class BackOff {

    @Test
    void theWaitDoublesFromTheBackoffUpToTheMaximum() {
      assertThat(POLICY.delayBefore(1)).isEqualTo(Duration.ofSeconds(1));
      assertThat(POLICY.delayBefore(2)).isEqualTo(Duration.ofSeconds(2));
      assertThat(POLICY.delayBefore(3)).isEqualTo(Duration.ofSeconds(4));
      assertThat(POLICY.delayBefore(4)).isEqualTo(Duration.ofSeconds(5));
      assertThat(POLICY.delayBefore(60)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aStoreThatKeepsDyingIsRestartedMaxAttemptsTimesThenGivenUpOn() {
      assertThat(diesAfter(Duration.ofSeconds(30))).contains(Duration.ofSeconds(1));
      assertThat(diesAfter(Duration.ofSeconds(30))).contains(Duration.ofSeconds(2));
      assertThat(diesAfter(Duration.ofSeconds(30))).contains(Duration.ofSeconds(4));
      assertThat(diesAfter(Duration.ofSeconds(30))).contains(Duration.ofSeconds(5));

      assertThat(diesAfter(Duration.ofSeconds(30))).isEmpty();
      assertThat(backoff.restarts()).isEqualTo(4);
    }

    @Test
    void aRestartThatDiesBeforeItIsUpCountsAsAnAttempt() {
      assertThat(diesAfter(Duration.ofMinutes(1))).contains(Duration.ofSeconds(1));
      now = now.plusSeconds(3); // never green
      assertThat(backoff.exited(now)).contains(Duration.ofSeconds(2));
      assertThat(backoff.attemptsInARow()).isEqualTo(2);
    }
  }

  @Nested
  class Reset {

    @Test
    void aStoreThatStayedUpForResetAfterStartsANewSeriesOfAttempts() {
      diesAfter(Duration.ofSeconds(30));
      diesAfter(Duration.ofSeconds(30));
      diesAfter(Duration.ofSeconds(30));

      assertThat(diesAfter(Duration.ofMinutes(10))).as("after ten minutes up").contains(Duration.ofSeconds(1));
      assertThat(backoff.attemptsInARow()).isEqualTo(1);
      assertThat(backoff.restarts()).isEqualTo(4);
    }

    @Test
    void justUnderResetAfterDoesNotResetTheCount() {
      diesAfter(Duration.ofSeconds(30));
      assertThat(diesAfter(Duration.ofMinutes(10).minusMillis(1))).contains(Duration.ofSeconds(2));
    }
  }

  @Test
  void maxAttemptsZeroNeverRestarts() {
    RestartBackoff never = new RestartBackoff(
        new RestartPolicy(0, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMinutes(1)));
    never.up(now);
    assertThat(never.exited(now.plusSeconds(1))).isEmpty();
  }

  @Test
  void aMaximumBelowTheFirstWaitIsRefused() {
    assertThatThrownBy(() -> new RestartPolicy(3, Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMinutes(1)))
        .hasMessageContaining("restart.max-backoff must be at least restart.backoff (2s), was 1s");
  }
}
