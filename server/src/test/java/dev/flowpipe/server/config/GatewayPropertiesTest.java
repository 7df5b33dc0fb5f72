package dev.flowpipe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GatewayPropertiesTest {

  private static final GatewayProperties.OAuth NO_OAUTH = new GatewayProperties.OAuth(null, null, null, "zeebe-api",
      null);

  @Test
  void anAddressThatIsNotHostAndPortIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> new GatewayProperties("http://zeebe:26500", true, null, Duration.ofSeconds(20), NO_OAUTH,
        null, null, null))
        .hasMessage("flowpipe.server.gateway.address must be host:port, was 'http://zeebe:26500'");
  }

  @Test
  void twoWaysOfAuthenticatingAtOnceAreRefused() {
    var oauth = new GatewayProperties.OAuth("id", "secret", "https://auth/token", "zeebe-api", null);
    assertThatThrownBy(() -> new GatewayProperties("zeebe:26500", true, null, Duration.ofSeconds(20), oauth, "token",
        null, null)).hasMessageContaining("exclude each other");
  }

  @Test
  void aCaCertificateWithPlaintextIsRefused() {
    assertThatThrownBy(() -> new GatewayProperties("zeebe:26500", true, Path.of("ca.pem"), Duration.ofSeconds(20),
        NO_OAUTH, null, null, null))
        .hasMessage("flowpipe.server.gateway.ca-certificate is for TLS: set flowpipe.server.gateway.plaintext=false, "
            + "or remove it");
  }

  @Test
  void secretsAreMaskedInTheDescription() {
    var oauth = new GatewayProperties.OAuth("id", "s3cret", "https://auth/token", "zeebe-api", null);
    assertThat(new GatewayProperties("zeebe:26500", true, null, Duration.ofSeconds(20), oauth, null, null, null)
        .toString()).doesNotContain("s3cret").contains("clientSecret=****");
    assertThat(new GatewayProperties("zeebe:26500", true, null, Duration.ofSeconds(20), NO_OAUTH, null, "u", "pa55")
        .toString()).doesNotContain("pa55");
  }
}
