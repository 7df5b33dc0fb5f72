package dev.flowpipe.webapp.alert;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The alerts' meters, per endpoint where it matters: {@code flowpipe.alerts.armed} (new incidents seen, counted once
 * in a cluster, tagged {@code outcome} armed or skipped), {@code flowpipe.alerts.sent} (2xx answers),
 * {@code flowpipe.alerts.retries} (failed attempts with attempts left), {@code flowpipe.alerts.failed} (deliveries
 * given up), {@code flowpipe.alerts.latency} (incident creation to the 2xx, with a histogram for percentiles), and the
 * gauges {@code flowpipe.alerts.pending} and {@code flowpipe.alerts.failed.stored} (deliveries in the store pending or
 * being sent, and failed, as last counted: the same for every process of a cluster).
 */
final class AlertMetrics {

  private final MeterRegistry registry;
  private final Map<String, Counter> sent = new ConcurrentHashMap<>();
  private final Map<String, Counter> retries = new ConcurrentHashMap<>();
  private final Map<String, Counter> failed = new ConcurrentHashMap<>();
  private final Map<String, Timer> latency = new ConcurrentHashMap<>();
  private final AtomicLong pending = new AtomicLong();
  private final AtomicLong failedStored = new AtomicLong();

  AlertMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("flowpipe.alerts.pending", pending, AtomicLong::get)
        .description("alert deliveries pending or being sent, in the store").register(registry);
    Gauge.builder("flowpipe.alerts.failed.stored", failedStored, AtomicLong::get)
        .description("alert deliveries that used all their attempts, in the store").register(registry);
  }

  void sent(String endpoint, Duration sinceIncident) {
    sent.computeIfAbsent(endpoint, e -> Counter.builder("flowpipe.alerts.sent").tag("endpoint", e)
        .description("alerts an endpoint answered with a 2xx").register(registry)).increment();
    latency.computeIfAbsent(endpoint, e -> Timer.builder("flowpipe.alerts.latency").tag("endpoint", e)
        .description("from the incident's creation to the endpoint's 2xx").publishPercentileHistogram()
        .register(registry)).record(sinceIncident.isNegative() ? Duration.ZERO : sinceIncident);
  }

  /** A new incident's alert armed (deliveries made) or skipped (error type or age), by the one process that did it. */
  void armed(boolean sent) {
    Counter.builder("flowpipe.alerts.armed").tag("outcome", sent ? "armed" : "skipped")
        .description("new incidents turned into alert deliveries, or skipped").register(registry).increment();
  }

  void retried(String endpoint) {
    retries.computeIfAbsent(endpoint, e -> Counter.builder("flowpipe.alerts.retries").tag("endpoint", e)
        .description("failed alert attempts that will be retried").register(registry)).increment();
  }

  void failed(String endpoint) {
    failed.computeIfAbsent(endpoint, e -> Counter.builder("flowpipe.alerts.failed").tag("endpoint", e)
        .description("alert deliveries given up after their last attempt").register(registry)).increment();
  }

  void stored(long pendingNow, long failedNow) {
    pending.set(pendingNow);
    failedStored.set(failedNow);
  }

  long pending() {
    return pending.get();
  }

  long failedStored() {
    return failedStored.get();
  }

  /** Alerts sent by this process since it started, over every endpoint. */
  long sentHere() {
    return (long) sent.values().stream().mapToDouble(Counter::count).sum();
  }
}
