package dev.flowpipe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.testsupport.NodeProcess;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code GET /v2/topology} and {@code /v2/status} of a server whose gateway does not answer: a 503 problem naming the
 * gateway within the configured topology timeout ({@code flowpipe.server.flow-control.request-timeout}, here 1 s), not
 * after the commands' {@code request-timeout} (20 s) or the client's own retries (it took ~10 s before). No store
 * answers either: the topology does not need it.
 */
class TopologyWithoutAGatewayTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TOPOLOGY_TIMEOUT = Duration.ofSeconds(1);
  /** What a loaded machine may add to the timeout (a thread's start, the first request's handling). */
  private static final Duration SLACK = Duration.ofSeconds(3);

  private final HttpClient http = HttpClient.newHttpClient();
  private ConfigurableApplicationContext server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private int start(String gatewayAddress) {
    List<String> arguments = new ArrayList<>(List.of("--server.port=0",
        "--flowpipe.store.url=http://127.0.0.1:" + NodeProcess.freePort(),
        "--flowpipe.server.gateway.address=" + gatewayAddress,
        "--flowpipe.server.gateway.request-timeout=20s",
        "--flowpipe.server.flow-control.request-timeout=" + TOPOLOGY_TIMEOUT.toMillis() + "ms"));
    server = new SpringApplicationBuilder(ServerApplication.class).run(arguments.toArray(String[]::new));
    return ((ServletWebServerApplicationContext) server).getWebServer().getPort();
  }

  private record Answer(HttpResponse<String> response, Duration took) {}

  private Answer get(int port, String path) throws Exception {
    long started = System.nanoTime();
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(response, Duration.ofNanos(System.nanoTime() - started));
  }

  private void assertAQuick503NamingTheGateway(Answer answer, String gatewayAddress) throws Exception {
    assertThat(answer.response().statusCode()).as(answer.response().body()).isEqualTo(503);
    assertThat(answer.response().headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonNode problem = JSON.readTree(answer.response().body());
    assertThat(problem.path("detail").asText()).contains("the gateway " + gatewayAddress);
    assertThat(answer.took()).as("answered within the topology timeout").isLessThan(TOPOLOGY_TIMEOUT.plus(SLACK));
  }

  @Nested
  class WhereNothingListens {

    @Test
    void theTopologyIsAQuick503ProblemNamingTheGateway() throws Exception {
      String gateway = "127.0.0.1:" + NodeProcess.freePort();
      int port = start(gateway);

      Answer first = get(port, "/v2/topology");
      Answer again = get(port, "/v2/topology");

      assertAQuick503NamingTheGateway(first, gateway);
      assertAQuick503NamingTheGateway(again, gateway);
    }

    @Test
    void theStatusIsAQuick503NamingTheGateway() throws Exception {
      String gateway = "127.0.0.1:" + NodeProcess.freePort();
      int port = start(gateway);

      Answer status = get(port, "/v2/status");

      assertThat(status.response().statusCode()).isEqualTo(503);
      assertThat(JSON.readTree(status.response().body()).path("detail").asText()).contains("the gateway " + gateway);
      assertThat(status.took()).isLessThan(TOPOLOGY_TIMEOUT.plus(SLACK));
    }
  }

  @Nested
  class WhereAPeerTakesTheConnectionAndNeverAnswers {

    @Test
    void theTopologyIsAQuick503ProblemNamingTheGateway() throws Exception {
      // as a gateway behind a firewall that drops, or a process that hangs: TCP connects, HTTP/2 never starts
      try (ServerSocket silent = new ServerSocket(0)) {
        List<Socket> accepted = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread acceptor = Thread.ofVirtual().start(() -> {
          try {
            while (true) {
              accepted.add(silent.accept());
            }
          } catch (java.io.IOException closed) {
            // the test is over
          }
        });
        String gateway = "127.0.0.1:" + silent.getLocalPort();
        int port = start(gateway);

        try {
          assertAQuick503NamingTheGateway(get(port, "/v2/topology"), gateway);
        } finally {
          silent.close();
          acceptor.join();
          for (Socket socket : accepted) {
            socket.close();
          }
        }
      }
    }
  }
}
