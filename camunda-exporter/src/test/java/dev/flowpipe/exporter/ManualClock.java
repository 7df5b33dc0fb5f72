package dev.flowpipe.exporter;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** The exporter's clock in tests: it moves only when the test moves it. */
final class ManualClock implements InstantSource {

  private volatile Instant now = Instant.parse("2026-11-24T12:00:00Z");

  @Override
  public Instant instant() {
    return now;
  }

  void advance(Duration by) {
    now = now.plus(by);
  }
}
