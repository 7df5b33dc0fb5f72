package dev.flowpipe.webapp.alert;

import dev.flowpipe.webapp.readmodel.ReadModel;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The alert dispatcher, where {@code flowpipe.alerts.enabled} is true: in the node's web app and in the server's alike
 * (every process of a cluster may run it; claims keep each delivery to one). It starts once the app is ready and
 * stops gracefully before the store it reads is closed (it depends on the read model).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "flowpipe.alerts", name = "enabled", havingValue = "true")
public class AlertConfiguration {

  @Bean(destroyMethod = "close")
  AlertDispatcher alertDispatcher(ReadModel readModel, AlertProperties properties, MeterRegistry registry,
      Clock clock) {
    // one thread: rounds and the marks after each answer take turns on it
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().daemon().name("flowpipe-alerts").factory());
    String owner = ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
    return new AlertDispatcher(new AlertStore(readModel), properties,
        new HttpWebhookSender(properties.requestTimeout()), new AlertMetrics(registry), clock, scheduler, scheduler,
        owner);
  }

  @Bean("alerts")
  AlertHealthIndicator alertHealth(AlertDispatcher dispatcher) {
    return new AlertHealthIndicator(dispatcher);
  }

  @Bean
  ApplicationListener<ApplicationReadyEvent> startAlerts(AlertDispatcher dispatcher) {
    return event -> dispatcher.start();
  }
}
