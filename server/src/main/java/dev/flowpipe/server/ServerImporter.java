package dev.flowpipe.server;

import dev.flowpipe.importer.Importer;
import dev.flowpipe.importer.config.ImporterSettings;
import dev.flowpipe.server.config.ServerImporterProperties;
import dev.flowpipe.webapp.config.StoreProperties;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The importer in the server ({@code flowpipe.server.importer.enabled=true}): raw records of Camunda's stock exporter
 * into the read model, with the importer's own keys ({@code flowpipe.importer.*}); the store is {@code flowpipe.store.*}'s unless
 * {@code flowpipe.importer.source-url} names another. Its state shows on the health as {@code importer}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ServerImporterProperties.class)
@ConditionalOnProperty(name = "flowpipe.server.importer.enabled", havingValue = "true")
public class ServerImporter {

  @Bean(destroyMethod = "close")
  Importer importer(Environment environment, StoreProperties store, MeterRegistry registry) {
    Map<String, Object> keys = new LinkedHashMap<>();
    Binder.get(environment).bind("flowpipe.importer", Bindable.mapOf(String.class, Object.class))
        .ifBound(bound -> flatten(ImporterSettings.PREFIX, bound, keys));
    return Importer.start(ImporterSettings.fromProperties(keys, store.connection().url().toString()), registry);
  }

  @SuppressWarnings("unchecked")
  private static void flatten(String prefix, Map<String, Object> map, Map<String, Object> into) {
    map.forEach((key, value) -> {
      if (value instanceof Map<?, ?> nested) {
        flatten(prefix + key + ".", (Map<String, Object>) nested, into);
      } else {
        into.put(prefix + key, value);
      }
    });
  }

  @Bean
  HealthIndicator importerHealthIndicator(Importer importer) {
    return () -> Health.up()
        .withDetail("caughtUp", importer.caughtUp())
        .withDetail("partitions", importer.partitions().keySet())
        .build();
  }
}
