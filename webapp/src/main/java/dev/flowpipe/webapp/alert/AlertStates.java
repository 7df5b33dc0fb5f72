package dev.flowpipe.webapp.alert;

/** The states of alerts and of their deliveries, as stored (ADR 0021). */
final class AlertStates {

  /** An alert the writer armed; no dispatcher has made its deliveries yet. */
  static final String NEW = "NEW";
  /** An alert whose deliveries exist. */
  static final String ARMED = "ARMED";
  /** An alert not sent: its error type is not configured, or it was older than the maximum age when first seen. */
  static final String SKIPPED = "SKIPPED";

  /** A delivery waiting for its next attempt. */
  static final String PENDING = "PENDING";
  /** A delivery a process claimed and is sending now (until its claim expires). */
  static final String SENDING = "SENDING";
  /** A delivery the endpoint answered with a 2xx. */
  static final String DELIVERED = "DELIVERED";
  /** A delivery that used all its attempts without a 2xx. */
  static final String FAILED = "FAILED";

  private AlertStates() {}
}
