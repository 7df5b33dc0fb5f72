package dev.flowpipe.webapp.alert;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The alerts in the health details ({@code /actuator/health/alerts}): endpoints, deliveries pending and failed in the
 * store, sent from here. Always UP: a webhook that is down must not take the web app out of service; failed
 * deliveries show in the details and in {@code flowpipe.alerts.failed}.
 */
final class AlertHealthIndicator implements HealthIndicator {

  private final AlertDispatcher dispatcher;

  AlertHealthIndicator(AlertDispatcher dispatcher) {
    this.dispatcher = dispatcher;
  }

  @Override
  public Health health() {
    return Health.up().withDetails(dispatcher.details()).build();
  }
}
