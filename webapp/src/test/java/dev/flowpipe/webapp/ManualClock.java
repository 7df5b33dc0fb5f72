package dev.flowpipe.webapp;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

/** A clock the test moves. */
public final class ManualClock extends Clock {
  private Instant now = Instant.parse("2026-11-27T10:00:00Z");

  public void advance(Duration duration) {
    now = now.plus(duration);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public java.time.ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(java.time.ZoneId zone) {
    return this;
  }
}
