package dev.flowpipe.node;

import dev.flowpipe.importer.Importer;
import dev.flowpipe.node.broker.EmbeddedBroker;
import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.node.store.RunningStore;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The importer inside the node ({@code flowpipe.importer.enabled=true}): raw records of Camunda's stock exporter, read
 * from the node's store unless {@code flowpipe.importer.source-url} names another, into the read model. Its state shows
 * on the actuator's health as {@code importer} (UP, with {@code caughtUp} true or false).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "flowpipe.importer.enabled", havingValue = "true")
public class NodeImporter {

  @Bean(destroyMethod = "close")
  Importer importer(NodeProperties properties, RunningStore store, EmbeddedBroker broker, MeterRegistry registry) {
    // validated with the node's other properties before anything started; here the embedded store's URL is known
    return Importer.start(properties.importerSettings(store.connection().url().toString()), registry);
  }

  @Bean
  HealthIndicator importerHealthIndicator(Importer importer) {
    return () -> Health.up()
        .withDetail("caughtUp", importer.caughtUp())
        .withDetail("partitions", importer.partitions().keySet())
        .build();
  }
}
