package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v2/topology} and {@code GET /v2/status} where the web app cannot ask a cluster: on its own without a
 * gateway, or with one that cannot be reached. A real cluster's answers: {@code ClusterOnNodeTest} in engine-broker,
 * and the official client's test in client-compatibility.
 */
class ClusterApiTest {

  /** No store needed: neither endpoint reads the read model. */
  private static TestWebapp start(Map<String, Object> settings) {
    Map<String, Object> all = new java.util.HashMap<>(Map.of("flowpipe.store.url", "http://127.0.0.1:1"));
    all.putAll(settings);
    return TestWebapp.start(all);
  }

  @Nested
  class WithoutAGateway {

    @Test
    void theTopologyIs501NamingTheSetting() {
      try (TestWebapp app = start(Map.of())) {
        TestWebapp.Answer answer = app.get("/v2/topology");

        assertThat(answer.status()).as(answer.body()).isEqualTo(501);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.json().path("detail").asText()).contains("flowpipe.webapp.operations.gateway-address");
      }
    }

    @Test
    void theStatusIs503SayingWhy() {
      try (TestWebapp app = start(Map.of())) {
        TestWebapp.Answer answer = app.get("/v2/status");

        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.json().path("detail").asText()).contains("topology cannot be read");
      }
    }
  }

  @Nested
  class WithAGatewayThatCannotBeReached {

    @Test
    void theTopologyIs503AndTheStatusToo() throws Exception {
      int closed;
      try (ServerSocket socket = new ServerSocket(0)) {
        closed = socket.getLocalPort(); // free once closed: nothing listens there
      }
      try (TestWebapp app = start(Map.of("flowpipe.webapp.operations.gateway-address", "127.0.0.1:" + closed,
          "flowpipe.webapp.operations.request-timeout", "5s"))) {
        TestWebapp.Answer topology = app.get("/v2/topology");
        TestWebapp.Answer status = app.get("/v2/status");

        assertThat(topology.status()).as(topology.body()).isEqualTo(503);
        assertThat(topology.header("Retry-After")).isEqualTo("1");
        assertThat(status.status()).isEqualTo(503);
      }
    }
  }
}
