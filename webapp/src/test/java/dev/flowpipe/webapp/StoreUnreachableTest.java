package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.webapp.TestWebapp.Answer;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The web app pointed at a store URL where nothing listens: it starts, serves the UI and answers 503 to the API. */
class StoreUnreachableTest {

  private static TestWebapp app;

  @BeforeAll
  static void start() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    app = TestWebapp.start(Map.of("flowpipe.store.url", "http://127.0.0.1:" + closedPort,
        "flowpipe.store.connect-timeout", "1s"));
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  @Test
  void searchesAre503ProblemsNamingTheStore() {
    Answer answer = app.post("/v2/process-instances/search", "{}");

    assertThat(answer.status()).isEqualTo(503);
    assertThat(answer.contentType()).isEqualTo("application/problem+json");
    assertThat(answer.json().path("detail").asText()).contains("unreachable");
    assertThat(answer.header("Retry-After")).isEqualTo("1");
  }

  @Test
  void readsByKeyAndConsistencyRequestsAre503Too() {
    assertThat(app.get("/v2/process-instances/1").status()).isEqualTo(503);
    assertThat(app.get("/v2/process-definitions/1/xml").status()).isEqualTo(503);
    assertThat(app.post("/v2/jobs/search", "{\"consistency\": {\"processInstanceKey\": 1}}").status()).isEqualTo(503);
  }

  @Test
  void badInputIsStill400BeforeTheStoreIsAsked() {
    assertThat(app.post("/v2/process-instances/search", "{\"filter\": {\"nope\": 1}}").status()).isEqualTo(400);
  }

  @Test
  void theUiIsServed() {
    assertThat(app.get("/").status()).isEqualTo(200);
  }
}
