package dev.flowpipe.schema.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.settings.Secrets;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The store connection's rules, written once for every reader of store settings. */
class StoreConnectionTest {

  private static final String PREFIX = "flowpipe.store.";
  private static final URI URL = URI.create("http://search:9200");

  @Nested
  class FromSettings {

    @Test
    void aUrlOfAnotherSchemeFailsNamingTheKeyAndTheValue() {
      assertThatThrownBy(() -> StoreConnection.of(PREFIX, URI.create("ftp://search:21"), null, null, null, null, null))
          .hasMessage("flowpipe.store.url must be http(s)://host[:port], was 'ftp://search:21'");
    }

    @Test
    void aUrlTextThatIsNoUrlFailsNamingTheKeyAndTheValue() {
      assertThatThrownBy(() -> StoreConnection.url("flowpipe.store.url", "http://se arch:9200"))
          .hasMessageStartingWith("flowpipe.store.url is not a URL, was 'http://se arch:9200'");
    }

    @Test
    void aTimeoutThatIsNotPositiveFailsNamingTheKeyAndTheValue() {
      assertThatThrownBy(() -> StoreConnection.of(PREFIX, URL, null, null, Duration.ZERO, null, null))
          .hasMessage("flowpipe.store.connect-timeout must be a positive duration, was 0ms");
      assertThatThrownBy(() -> StoreConnection.of(PREFIX, URL, null, null, null, Duration.ofMillis(-5), null))
          .hasMessage("flowpipe.store.request-timeout must be a positive duration, was -5ms");
    }

    @Test
    void timeoutsNotGivenAreTheDefaults() {
      StoreConnection connection = StoreConnection.of(PREFIX, URL, null, null, null, null, null);

      assertThat(connection.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
      assertThat(connection.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
      assertThat(connection.tls()).isEqualTo(StoreTls.DEFAULT);
    }
  }

  @Nested
  class Printed {

    @Test
    void thePasswordIsMaskedAndSaysWhetherOneIsSet() {
      StoreConnection withPassword = new StoreConnection(URL, "exporter", "s3cret", null, null);
      StoreConnection without = new StoreConnection(URL, null, null, null, null);

      assertThat(withPassword.toString()).contains("username=exporter", "password=****").doesNotContain("s3cret");
      assertThat(without.toString()).contains("password=null");
    }

    @Test
    void aSecretPrintsAsTheMaskWhenSetAndAsNullWhenNot() {
      assertThat(Secrets.mask("changeit")).isEqualTo("****");
      assertThat(Secrets.mask(null)).isNull();
    }
  }
}
