package dev.flowpipe.node.retention;

import dev.flowpipe.node.broker.EmbeddedBroker;
import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.node.store.RunningStore;
import dev.flowpipe.schema.retention.RetentionSweep;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The node's retention sweep (ADR 0011), when {@code flowpipe.retention.keep} is set. It starts after the broker (so
 * after the store and its schema), and one runs per node: sweeps of several nodes on one store only repeat each
 * other's idempotent steps.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "flowpipe.retention", name = "keep")
public class RetentionConfiguration {

  @Bean(destroyMethod = "close")
  RetentionService retentionService(NodeProperties node, RetentionProperties retention, RunningStore store,
      EmbeddedBroker broker, MeterRegistry registry, Clock clock) {
    RetentionSweep sweep = new RetentionSweep(store.client(), node.exporter().indexPrefix(), retention.settings(),
        clock);
    RetentionService service = new RetentionService(sweep::sweep, Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().name("flowpipe-retention").daemon().factory()), retention.checkInterval(), clock, registry);
    service.start();
    return service;
  }

  /** {@code /actuator/health} detail {@code retention}: the last sweep's findings, DOWN while sweeps fail. */
  @Bean("retention")
  HealthIndicator retentionHealth(RetentionService service) {
    return () -> {
      Map<String, Object> details = new LinkedHashMap<>();
      service.lastRun().ifPresent(at -> details.put("lastSweep", at.toString()));
      service.last().ifPresent(status -> {
        status.oldestDataHeld().ifPresent(at -> details.put("oldestDataHeld", at.toString()));
        details.put("bytesHeld", status.bytesHeld());
        status.nextDeletion().ifPresent(at -> details.put("nextDeletion", at.toString()));
        details.put("pinnedPeriods", status.pinned().size());
      });
      return service.lastFailure()
          .map(failure -> Health.down().withDetails(details).withDetail("reason", failure.toString()).build())
          .orElseGet(() -> Health.up().withDetails(details).build());
    };
  }
}
