package dev.flowpipe.node;

import dev.flowpipe.importer.Importer;
import dev.flowpipe.importer.config.ImporterSettings;
import dev.flowpipe.node.broker.EmbeddedBroker;
import dev.flowpipe.node.store.RunningStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The importer inside the node ({@code flowpipe.importer.enabled=true}): raw records of Camunda's stock exporter, read
 * from the node's store unless {@code flowpipe.importer.source-url} names another, into the read model. Its state shows
 * on the actuator's health as {@code importer} (UP, with {@code caughtUp} true or false).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "flowpipe.importer.enabled", havingValue = "true")
public class NodeImporter {

  @Bean(destroyMethod = "close")
  Importer importer(Environment environment, RunningStore store, EmbeddedBroker broker, MeterRegistry registry) {
    Map<String, Object> relative = Binder.get(environment)
        .bind("flowpipe.importer", Bindable.mapOf(String.class, Object.class)).orElse(Map.of());
    Map<String, Object> properties = new LinkedHashMap<>();
    relative.forEach((key, value) -> properties.put(ImporterSettings.PREFIX + key, value));
    // throws naming the key on a bad value, which fails the node's start
    ImporterSettings settings = ImporterSettings.fromProperties(properties, store.connection().url().toString());
    return Importer.start(settings, registry);
  }

  @Bean
  HealthIndicator importerHealthIndicator(Importer importer) {
    return () -> Health.up()
        .withDetail("caughtUp", importer.caughtUp())
        .withDetail("partitions", importer.partitions().keySet())
        .build();
  }
}
