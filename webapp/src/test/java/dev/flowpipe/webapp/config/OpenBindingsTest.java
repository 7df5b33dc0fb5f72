package dev.flowpipe.webapp.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** The start-up warnings for ports open beyond loopback without authentication. */
class OpenBindingsTest {

  @Nested
  class TheHttpPort {

    @Test
    void onLoopbackNeedsNoWarning() {
      assertThat(OpenBindings.warnings(new MockEnvironment().withProperty("server.address", "127.0.0.1"), false))
          .isEmpty();
      assertThat(OpenBindings.warnings(new MockEnvironment().withProperty("server.address", "::1"), false)).isEmpty();
      assertThat(OpenBindings.warnings(new MockEnvironment().withProperty("server.address", "localhost"), false))
          .isEmpty();
    }

    @Test
    void onEveryInterfaceWithoutAuthenticationIsWarnedAboutNamingTheAddressAndTheKeys() {
      assertThat(OpenBindings.warnings(new MockEnvironment().withProperty("server.address", "0.0.0.0")
          .withProperty("server.port", "8443"), false))
          .singleElement().asString().contains("8443").contains("0.0.0.0 (server.address)")
          .contains("flowpipe.webapp.security.basic-auth=true");
    }

    @Test
    void withoutAnAddressBindsEveryInterfaceAndIsWarnedAbout() {
      assertThat(OpenBindings.warnings(new MockEnvironment(), false)).singleElement().asString()
          .contains("every interface (server.address unset)");
    }

    @Test
    void withAuthenticationNeedsNoWarning() {
      assertThat(OpenBindings.warnings(new MockEnvironment().withProperty("server.address", "0.0.0.0"), true))
          .isEmpty();
    }
  }

  @Nested
  class TheGateway {

    @Test
    void beyondLoopbackIsWarnedAboutEvenWithTheWebAppsAuthentication() {
      MockEnvironment node = new MockEnvironment().withProperty("server.address", "127.0.0.1")
          .withProperty("flowpipe.gateway.host", "0.0.0.0").withProperty("flowpipe.gateway.port", "26500");

      assertThat(OpenBindings.warnings(node, true)).singleElement().asString()
          .contains("0.0.0.0:26500 (flowpipe.gateway.host)").contains("no authentication")
          .contains("flowpipe.gateway.host=127.0.0.1");
    }

    @Test
    void onLoopbackOrAbsentNeedsNoWarning() {
      assertThat(OpenBindings.warnings(new MockEnvironment().withProperty("server.address", "127.0.0.1")
          .withProperty("flowpipe.gateway.host", "127.0.0.1"), false)).isEmpty();
    }
  }
}
