package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** HTTP basic authentication switched on in the configuration (off is what every other test runs with). */
@ExtendWith(SharedOpenSearch.class)
class BasicAuthTest {

  private static TestWebapp app;

  @BeforeAll
  static void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    app = TestWebapp.start(Map.of(
        "flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix,
        "flowpipe.webapp.security.basic-auth", true,
        "flowpipe.webapp.security.username", "reader",
        "flowpipe.webapp.security.password", "s3cret"));
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  @Test
  void withoutCredentialsEverythingIs401() {
    app.as(null, null);

    assertThat(app.post("/v2/process-instances/search", "{}").status()).isEqualTo(401);
    assertThat(app.get("/v2/process-instances/1001").status()).isEqualTo(401);
    assertThat(app.get("/").status()).isEqualTo(401);
    assertThat(app.get("/").header("WWW-Authenticate")).startsWith("Basic");
  }

  @Test
  void theClusterStatusIsOpenWithoutCredentialsAsCamundasSpecHasIt() {
    app.as(null, null);

    // no gateway here: 503 is the status's own answer, not a refusal
    assertThat(app.get("/v2/status").status()).isEqualTo(503);
    assertThat(app.get("/v2/topology").status()).isEqualTo(401);
  }

  @Test
  void wrongCredentialsAre401() {
    assertThat(app.as("reader", "wrong").post("/v2/process-instances/search", "{}").status()).isEqualTo(401);
  }

  @Test
  void theConfiguredUserSearchesAndReads() {
    app.as("reader", "s3cret");

    assertThat(app.post("/v2/process-instances/search", "{}").json().path("page").path("totalItems").asLong()).isEqualTo(30);
    assertThat(app.get("/v2/process-instances/1001").status()).isEqualTo(200);
    assertThat(app.get("/").status()).isEqualTo(200);
  }

  @Test
  void evenTheConfiguredUserCannotWrite() {
    assertThat(app.as("reader", "s3cret").post("/v2/process-instances/1001", "{}").status()).isEqualTo(403);
  }
}
