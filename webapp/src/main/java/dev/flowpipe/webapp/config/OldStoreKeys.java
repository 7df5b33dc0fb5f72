package dev.flowpipe.webapp.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Refuses to start while a {@code flowpipe.webapp.store.*} key is set (in any file, argument or environment variable
 * such as {@code FLOWPIPE_WEBAPP_STORE_URL}): the web app and the server read the store of {@code flowpipe.store.*}
 * since ADR 0018, and an old key left in place would otherwise be ignored without a word, pointing the web app at
 * another store than the one its user set.
 */
public final class OldStoreKeys implements EnvironmentPostProcessor, Ordered {

  static final ConfigurationPropertyName OLD = ConfigurationPropertyName.of("flowpipe.webapp.store");

  static final String OLD_VARIABLE = "FLOWPIPE_WEBAPP_STORE_";

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    List<String> found = new ArrayList<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource variables) {
        // named as the user wrote it: mapped to a property, FLOWPIPE_WEBAPP_STORE_INDEX_PREFIX reads index.prefix
        Arrays.stream(variables.getPropertyNames())
            .filter(name -> name.toUpperCase(Locale.ROOT).startsWith(OLD_VARIABLE))
            .map(name -> message(name, "FLOWPIPE_STORE_" + name.substring(OLD_VARIABLE.length())))
            .forEach(found::add);
      } else if (source instanceof IterableConfigurationPropertySource iterable) {
        iterable.stream().filter(OLD::isAncestorOf).map(ConfigurationPropertyName::toString)
            .map(name -> message(name, StoreProperties.PREFIX + name.substring(OLD.toString().length())))
            .forEach(found::add);
      }
    }
    if (!found.isEmpty()) {
      throw new IllegalStateException(String.join("; ", found.stream().distinct().toList()));
    }
  }

  private static String message(String old, String replacement) {
    return old + " is no longer read: set " + replacement + " instead (the node, the web app and the server read the"
        + " store of " + StoreProperties.PREFIX + ".*)";
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE; // after the application's own files are read
  }
}
