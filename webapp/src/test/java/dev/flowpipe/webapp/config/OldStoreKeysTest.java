package dev.flowpipe.webapp.config;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.webapp.WebappApplication;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** A {@code flowpipe.webapp.store.*} key left from before ADR 0018 stops start-up, naming the key to set instead. */
class OldStoreKeysTest {

  @Nested
  class TheWebAppOnItsOwn {

    @Test
    void refusesToStartWithAnOldKeyAsAnArgumentNamingTheOldAndTheNewKey() {
      SpringApplication application = new SpringApplication(WebappApplication.class);
      application.setDefaultProperties(WebappApplication.DEFAULTS);

      assertThatThrownBy(() -> application.run("--server.port=0", "--flowpipe.webapp.store.url=http://127.0.0.1:1"))
          .hasMessageContaining("flowpipe.webapp.store.url is no longer read: set flowpipe.store.url instead");
    }
  }

  @Nested
  class ThePostProcessor {

    @Test
    void namesEveryOldEnvironmentVariableAndTheVariableToSetInstead() {
      StandardEnvironment environment = new StandardEnvironment();
      environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
          new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
              Map.of("FLOWPIPE_WEBAPP_STORE_INDEX_PREFIX", "mine", "FLOWPIPE_WEBAPP_STORE_TLS_CA_CERTIFICATE", "ca.pem")));

      assertThatThrownBy(() -> new OldStoreKeys().postProcessEnvironment(environment, new SpringApplication()))
          .hasMessageContaining("FLOWPIPE_WEBAPP_STORE_INDEX_PREFIX is no longer read: set FLOWPIPE_STORE_INDEX_PREFIX")
          .hasMessageContaining("FLOWPIPE_WEBAPP_STORE_TLS_CA_CERTIFICATE is no longer read: set"
              + " FLOWPIPE_STORE_TLS_CA_CERTIFICATE");
    }

    @Test
    void leavesTheNewKeysAndTheWebAppsOtherKeysAlone() {
      StandardEnvironment environment = new StandardEnvironment();
      environment.getPropertySources().addFirst(new MapPropertySource("given", Map.of(
          "flowpipe.store.url", "http://search:9200", "flowpipe.webapp.security.basic-auth", "false",
          "flowpipe.webapp.storefront", "not a store key")));

      assertThatCode(() -> new OldStoreKeys().postProcessEnvironment(environment, new SpringApplication()))
          .doesNotThrowAnyException();
    }

    @Test
    void namesAnOldKeyOfAFileAndTheKeyToSetInstead() {
      StandardEnvironment environment = new StandardEnvironment();
      environment.getPropertySources().addFirst(new MapPropertySource("application.yaml",
          Map.of("flowpipe.webapp.store.request-timeout", "10s")));

      assertThatThrownBy(() -> new OldStoreKeys().postProcessEnvironment(environment, new SpringApplication()))
          .hasMessageStartingWith("flowpipe.webapp.store.request-timeout is no longer read: set"
              + " flowpipe.store.request-timeout instead");
    }
  }
}
