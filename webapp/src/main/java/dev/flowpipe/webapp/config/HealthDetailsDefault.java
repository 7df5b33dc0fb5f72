package dev.flowpipe.webapp.config;

import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Who sees the health endpoint's details (store URL, versions, error texts), unless
 * {@code management.endpoint.health.show-details} is configured: with basic authentication only a signed-in user
 * ({@code when-authorized}; anyone else gets the status only), without it everyone ({@code always}: the port is
 * open to all who reach it anyway).
 */
public final class HealthDetailsDefault implements EnvironmentPostProcessor, Ordered {

  static final String KEY = "management.endpoint.health.show-details";

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    if (environment.containsProperty(KEY)) {
      return;
    }
    boolean basicAuth = Binder.get(environment).bind("flowpipe.webapp.security.basic-auth", Boolean.class)
        .orElse(false);
    environment.getPropertySources().addLast(new MapPropertySource("flowpipe-health-details",
        Map.of(KEY, basicAuth ? "when-authorized" : "always")));
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE; // after the application's own files are read
  }
}
