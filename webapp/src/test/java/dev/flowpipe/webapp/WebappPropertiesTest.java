package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.webapp.config.StoreProperties;
import dev.flowpipe.webapp.config.WebappProperties;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/** The web app's configuration: defaults, and a bad value stops start-up naming the key and the value. */
class WebappPropertiesTest {

  @EnableConfigurationProperties({WebappProperties.class, StoreProperties.class})
  static class Bound {}

  private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Bound.class);

  @Test
  void defaultsAreUsableWithoutAnyConfiguration() {
    runner.run(context -> {
      WebappProperties properties = context.getBean(WebappProperties.class);
      assertThat(properties.search().defaultPageSize()).isEqualTo(100);
      assertThat(properties.search().maxPageSize()).isEqualTo(10000);
      assertThat(properties.consistency().defaultTimeout()).hasSeconds(5);
      assertThat(properties.consistency().maxTimeout()).hasSeconds(30);
      assertThat(properties.consistency().pollInterval()).hasMillis(20);
      assertThat(properties.security().basicAuth()).isFalse();
      assertThat(properties.ui().refreshInterval()).hasSeconds(1);
      StoreProperties store = context.getBean(StoreProperties.class);
      assertThat(store.connection().url()).hasToString("http://127.0.0.1:9200");
      assertThat(store.indexPrefixOrDefault()).isEqualTo("flowpipe");
      assertThat(store.connection().connectTimeout()).hasSeconds(5);
      assertThat(store.connection().requestTimeout()).hasSeconds(30);
      assertThat(properties.search().storeTimeout()).hasSeconds(10);
      assertThat(properties.consistency().maxWaits()).isEqualTo(1000);
      WebappProperties.Limits limits = properties.limits();
      assertThat(limits.maxBodySize().toMegabytes()).isEqualTo(4);
      assertThat(List.of(limits.maxListValues(), limits.maxOrBranches(), limits.maxFilterConditions(),
          limits.maxSortFields(), limits.maxConsistencyPositions(), limits.maxValueLength()))
          .containsExactly(1000, 50, 100, 10, 64, 4096);
    });
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
    "flowpipe.webapp.search.max-page-size, 0, 'flowpipe.webapp.search.max-page-size must be 1 to 10000, was 0'",
    "flowpipe.webapp.search.default-page-size, 20000, 'flowpipe.webapp.search.default-page-size must be 1 to max-page-size (10000), was 20000'",
    "flowpipe.webapp.consistency.poll-interval, 0ms, 'flowpipe.webapp.consistency.poll-interval must be a positive duration, was 0ms'",
    "flowpipe.webapp.consistency.default-timeout, 1m, 'flowpipe.webapp.consistency.default-timeout must be <= max-timeout (30s), was 1m'",
    "flowpipe.webapp.ui.refresh-interval, -1s, 'flowpipe.webapp.ui.refresh-interval must be a positive duration, was -1s'",
    "flowpipe.store.url, ftp://host, 'flowpipe.store.url must be http(s)://host[:port], was ''ftp://host'''",
    "flowpipe.store.index-prefix, Upper, 'flowpipe.store.index-prefix must be lowercase letters, digits, ''-'', ''_'' or ''.'', starting with a letter or digit, at most 100 characters, was ''Upper'''",
    "flowpipe.store.tls.trust-store, /nowhere/trust.p12, 'flowpipe.store.tls.trust-store: no readable file at /nowhere/trust.p12'",
    "flowpipe.store.tls.trust-store-type, PEM, 'flowpipe.store.tls.trust-store-type must be PKCS12 or JKS, was ''PEM'''",
    "flowpipe.webapp.security.basic-auth, true, 'flowpipe.webapp.security.username must be set when basic-auth is on'",
    "flowpipe.webapp.search.store-timeout, 0s, 'flowpipe.webapp.search.store-timeout must be a positive duration, was 0ms'",
    "flowpipe.webapp.consistency.max-waits, 0, 'flowpipe.webapp.consistency.max-waits must be 1 to 100000, was 0'",
    "flowpipe.webapp.limits.max-body-size, 10B, 'flowpipe.webapp.limits.max-body-size must be 1KB to 1GB, was 10B'",
    "flowpipe.webapp.limits.max-list-values, 0, 'flowpipe.webapp.limits.max-list-values must be 1 to 65536, was 0'",
    "flowpipe.webapp.limits.max-or-branches, 5000, 'flowpipe.webapp.limits.max-or-branches must be 1 to 1000, was 5000'",
    "flowpipe.webapp.limits.max-filter-conditions, -1, 'flowpipe.webapp.limits.max-filter-conditions must be 1 to 10000, was -1'",
    "flowpipe.webapp.limits.max-sort-fields, 101, 'flowpipe.webapp.limits.max-sort-fields must be 1 to 100, was 101'",
    "flowpipe.webapp.limits.max-consistency-positions, 0, 'flowpipe.webapp.limits.max-consistency-positions must be 1 to 10000, was 0'",
    "flowpipe.webapp.limits.max-value-length, 0, 'flowpipe.webapp.limits.max-value-length must be 1 to 1000000, was 0'",
    "flowpipe.webapp.operations.migration-role, admin, 'flowpipe.webapp.operations.migration-role must be write or migrate, was admin'"
  })
  void aBadValueFailsNamingTheKeyAndTheValue(String key, String value, String message) {
    runner.withPropertyValues(key + "=" + value).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(message);
    });
  }

  @Test
  void aMalformedDurationFailsNamingTheKey() {
    runner.withPropertyValues("flowpipe.webapp.consistency.max-timeout=soon").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).hasStackTraceContaining("flowpipe.webapp.consistency.max-timeout").hasStackTraceContaining("soon");
    });
  }

  @Test
  void aUserWithoutAPasswordOrRolesFailsNamingTheKey() {
    runner.withPropertyValues("flowpipe.webapp.security.users[0].username=operator").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).hasStackTraceContaining("flowpipe.webapp.security.users[0].password");
    });
    runner.withPropertyValues("flowpipe.webapp.operations.gateway-address=localhost").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).hasStackTraceContaining("flowpipe.webapp.operations.gateway-address")
          .hasStackTraceContaining("'localhost'");
    });
  }

  @Test
  void theOperationsFollowAuthenticationUnlessSetExplicitly() {
    runner.run(context -> assertThat(context.getBean(WebappProperties.class).operationsEnabled()).isFalse());
    runner.withPropertyValues("flowpipe.webapp.security.basic-auth=true", "flowpipe.webapp.security.username=r",
        "flowpipe.webapp.security.password=p").run(context ->
        assertThat(context.getBean(WebappProperties.class).operationsEnabled()).isTrue());
    runner.withPropertyValues("flowpipe.webapp.operations.enabled=true").run(context ->
        assertThat(context.getBean(WebappProperties.class).operationsEnabled()).isTrue());
  }

  @Nested
  class Secrets {
    @Test
    void passwordsAreNeverPrinted() {
      WebappProperties.Security security = new WebappProperties.Security(true, "reader", "s3cret", java.util.List.of(
          new WebappProperties.User("operator", "0perat0r", java.util.List.of(WebappProperties.Role.WRITE))), false);
      StoreProperties store = new StoreProperties("http://h:9200", "u", "hidden", java.time.Duration.ofSeconds(1),
          java.time.Duration.ofSeconds(1), null, "p", new StoreProperties.Tls(null, null, null, null, true));

      assertThat(security.toString()).doesNotContain("s3cret").doesNotContain("0perat0r").contains("****");
      assertThat(store.toString()).doesNotContain("hidden").contains("****");
    }
  }

  @Test
  void theStandaloneAppStartsOnLoopbackByDefault() {
    assertThat(WebappApplication.DEFAULTS).containsEntry("server.address", "127.0.0.1").containsEntry("server.port", 8080);
    assertThat(Map.copyOf(WebappApplication.DEFAULTS)).isNotEmpty();
  }
}
