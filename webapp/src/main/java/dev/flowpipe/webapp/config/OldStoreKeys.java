package dev.flowpipe.webapp.config;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Refuses to start while a {@code flowpipe.webapp.store.*} key is set (in any file, argument or environment variable
 * such as {@code FLOWPIPE_WEBAPP_STORE_URL}): the web app and the server read the store of {@code flowpipe.store.*}
 * since ADR 0018, and an old key left in place would otherwise be ignored without a word, pointing the web app at
 * another store than the one its user set.
 */
public final class OldStoreKeys implements EnvironmentPostProcessor, Ordered {

  static final ConfigurationPropertyName OLD = ConfigurationPropertyName.of("flowpipe.webapp.store");

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    List<String> found = new ArrayList<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (source instanceof IterableConfigurationPropertySource iterable) {
        iterable.stream().filter(OLD::isAncestorOf).map(ConfigurationPropertyName::toString)
            .filter(name -> !found.contains(name)).forEach(found::add);
      }
    }
    if (!found.isEmpty()) {
      throw new IllegalStateException(String.join("; ", found.stream().map(OldStoreKeys::message).toList()));
    }
  }

  /** What to set instead of the old key {@code name}. */
  static String message(String name) {
    String replacement = StoreProperties.PREFIX + name.substring(OLD.toString().length());
    return name + " is no longer read: set " + replacement + " instead (the node, the web app and the server read"
        + " the store of " + StoreProperties.PREFIX + ".*)";
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE; // after the application's own files are read
  }
}
