package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Who may send the operations, on the web app on its own without a gateway (so an operation that passes the access
 * rules answers 501, naming the setting): with authentication a user with the write role, without it nobody unless
 * the operations are switched on. The operations against a real engine: {@code OperationsOnNodeTest} in engine-broker.
 */
@ExtendWith(SharedOpenSearch.class)
class OperationsAccessTest {

  private static final String CANCEL = "/v2/process-instances/2251799813685249/cancellation";
  private static final String MODIFY = "/v2/process-instances/2251799813685249/modification";
  private static final String MIGRATE = "/v2/process-instances/2251799813685249/migration";
  private static final String ACTIVATE_A = "{\"activateInstructions\": [{\"elementId\": \"a\"}]}";
  private static final String MIGRATE_A = "{\"targetProcessDefinitionKey\": \"2251799813685253\","
      + " \"mappingInstructions\": [{\"sourceElementId\": \"a\", \"targetElementId\": \"a2\"}]}";

  /** What the UI is told this user may do ({@code /ui/config}): it shows the controls of those only. */
  private static Map<String, Object> uiConfig(TestWebapp app) {
    TestWebapp.Answer config = app.get("/ui/config");
    assertThat(config.status()).isEqualTo(200);
    Map<String, Object> may = new LinkedHashMap<>();
    for (String name : java.util.List.of("canOperate", "canMigrate", "canDelete")) {
      may.put(name, config.json().path(name).asBoolean());
    }
    return may;
  }

  private static TestWebapp start(EmbeddedSearchStore node, SearchStore store, Map<String, Object> settings) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    Map<String, Object> all = new LinkedHashMap<>(Map.of(
        "flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix));
    all.putAll(settings);
    return TestWebapp.start(all);
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithAuthentication {

    private TestWebapp app;

    @BeforeAll
    void start(EmbeddedSearchStore node, SearchStore store) {
      app = OperationsAccessTest.start(node, store, Map.of(
          "flowpipe.webapp.security.basic-auth", true,
          "flowpipe.webapp.security.users[0].username", "reader",
          "flowpipe.webapp.security.users[0].password", "r",
          "flowpipe.webapp.security.users[1].username", "operator",
          "flowpipe.webapp.security.users[1].password", "o",
          "flowpipe.webapp.security.users[1].roles", "write"));
    }

    @AfterAll
    void stop() {
      app.close();
    }

    @Test
    void anOperationNeedsAUserWithTheWriteRole() {
      assertThat(app.as(null, null).post(CANCEL, "{}").status()).isEqualTo(401);
      assertThat(app.as("reader", "r").post(CANCEL, "{}").status()).isEqualTo(403);

      TestWebapp.Answer answer = app.as("operator", "o").post(CANCEL, "{}");
      assertThat(answer.status()).isEqualTo(501);
      assertThat(answer.contentType()).startsWith("application/problem+json");
      assertThat(answer.json().path("detail").asText()).contains("flowpipe.webapp.operations.gateway-address");
    }

    @Test
    void everyOperationsPathIsGuarded() {
      app.as("reader", "r");
      assertThat(app.post("/v2/process-instances", "{\"processDefinitionId\": \"p\"}").status()).isEqualTo(403);
      assertThat(app.post("/v2/incidents/2251799813685250/resolution", "{}").status()).isEqualTo(403);
      assertThat(app.post("/v2/messages/publication", "{\"name\": \"m\"}").status()).isEqualTo(403);
      assertThat(send("PATCH", "/v2/jobs/2251799813685251", "{\"changeset\": {\"retries\": 1}}").status())
          .isEqualTo(403);
      assertThat(send("PUT", "/v2/element-instances/2251799813685252/variables", "{\"variables\": {}}").status())
          .isEqualTo(403);

      app.as("operator", "o");
      assertThat(send("PATCH", "/v2/jobs/2251799813685251", "{\"changeset\": {\"retries\": 1}}").status())
          .isEqualTo(501);
      assertThat(send("PUT", "/v2/element-instances/2251799813685252/variables", "{\"variables\": {\"a\": 1}}")
          .status()).isEqualTo(501);
    }

    @Test
    void modificationAndMigrationNeedTheWriteRoleByDefault() {
      app.as("reader", "r");
      assertThat(app.post(MODIFY, ACTIVATE_A).status()).isEqualTo(403);
      assertThat(app.post(MIGRATE, MIGRATE_A).status()).isEqualTo(403);

      app.as("operator", "o");
      assertThat(app.post(MODIFY, ACTIVATE_A).status()).isEqualTo(501);
      assertThat(app.post(MIGRATE, MIGRATE_A).status()).isEqualTo(501);
    }

    @Test
    void aBadModificationOrMigrationInstructionIsNamed() {
      app.as("operator", "o");
      assertThat(part(app.post(MODIFY, "{}"))).isEqualTo("body");
      assertThat(part(app.post(MODIFY, "{\"activateInstructions\": [{\"elementId\": \"\"}]}")))
          .isEqualTo("activateInstructions[0].elementId");
      assertThat(part(app.post(MODIFY, "{\"activateInstructions\": [{\"elementId\": \"a\","
          + " \"ancestorElementInstanceKey\": \"x\"}]}"))).isEqualTo("activateInstructions[0].ancestorElementInstanceKey");
      assertThat(part(app.post(MODIFY, "{\"activateInstructions\": [{\"elementId\": \"a\","
          + " \"variableInstructions\": [{\"variables\": 3}]}]}")))
          .isEqualTo("activateInstructions[0].variableInstructions[0].variables");
      assertThat(part(app.post(MODIFY, "{\"terminateInstructions\": [{\"elementId\": \"a\"}]}")))
          .isEqualTo("terminateInstructions[0].elementInstanceKey");
      assertThat(part(app.post(MODIFY, "{\"moveInstructions\": [{\"targetElementId\": \"a\"}]}")))
          .isEqualTo("moveInstructions");
      assertThat(part(app.post(MIGRATE, "{\"mappingInstructions\": []}"))).isEqualTo("targetProcessDefinitionKey");
      assertThat(part(app.post(MIGRATE, "{\"targetProcessDefinitionKey\": \"2251799813685253\","
          + " \"mappingInstructions\": []}"))).isEqualTo("mappingInstructions");
      assertThat(part(app.post(MIGRATE, "{\"targetProcessDefinitionKey\": \"2251799813685253\","
          + " \"mappingInstructions\": [{\"sourceElementId\": \"a\"}]}")))
          .isEqualTo("mappingInstructions[0].targetElementId");
    }

    private String part(TestWebapp.Answer answer) {
      assertThat(answer.status()).as(answer.body()).isEqualTo(400);
      assertThat(answer.contentType()).startsWith("application/problem+json");
      return answer.json().path("part").asText();
    }

    @Test
    void theWriteRoleReadsToo() {
      assertThat(app.as("operator", "o").post("/v2/process-instances/search", "{}").status()).isEqualTo(200);
      assertThat(app.as("reader", "r").post("/v2/process-instances/search", "{}").status()).isEqualTo(200);
    }

    @Test
    void aBadRequestIsNamedBeforeTheEngineIsAsked() {
      app.as("operator", "o");
      TestWebapp.Answer badKey = app.post("/v2/process-instances/abc/cancellation", "{}");
      assertThat(badKey.status()).isEqualTo(400);
      assertThat(badKey.json().path("part").asText()).isEqualTo("processInstanceKey");

      TestWebapp.Answer noChange = send("PATCH", "/v2/jobs/2251799813685251", "{\"changeset\": {}}");
      assertThat(noChange.status()).isEqualTo(400);
      assertThat(noChange.json().path("part").asText()).isEqualTo("changeset");

      TestWebapp.Answer both = app.post("/v2/process-instances",
          "{\"processDefinitionId\": \"p\", \"processDefinitionKey\": \"2251799813685253\"}");
      assertThat(both.status()).isEqualTo(400);
      assertThat(both.json().path("part").asText()).isEqualTo("processDefinitionKey");

      TestWebapp.Answer negativeRetries = send("PATCH", "/v2/jobs/2251799813685251",
          "{\"changeset\": {\"retries\": -1}}");
      assertThat(negativeRetries.json().path("part").asText()).isEqualTo("changeset.retries");
    }

    private TestWebapp.Answer send(String method, String path, String json) {
      return app.send(HttpRequest.newBuilder(URI.create(app.baseUrl() + path)).header("Content-Type",
          "application/json").method(method, HttpRequest.BodyPublishers.ofString(json)));
    }
  }

  /** {@code operations.migration-role: migrate}: migration is the migrate role's alone. */
  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithMigrationLimitedToARoleOfItsOwn {

    private TestWebapp app;

    @BeforeAll
    void start(EmbeddedSearchStore node, SearchStore store) {
      app = OperationsAccessTest.start(node, store, Map.of(
          "flowpipe.webapp.security.basic-auth", true,
          "flowpipe.webapp.operations.migration-role", "migrate",
          "flowpipe.webapp.security.users[0].username", "operator",
          "flowpipe.webapp.security.users[0].password", "o",
          "flowpipe.webapp.security.users[0].roles", "write",
          "flowpipe.webapp.security.users[1].username", "migrator",
          "flowpipe.webapp.security.users[1].password", "m",
          "flowpipe.webapp.security.users[1].roles", "migrate"));
    }

    @AfterAll
    void stop() {
      app.close();
    }

    @Test
    void theWriteRoleMayModifyButNotMigrate() {
      app.as("operator", "o");
      assertThat(app.post(MIGRATE, MIGRATE_A).status()).isEqualTo(403);
      assertThat(app.post(MODIFY, ACTIVATE_A).status()).isEqualTo(501);
      // and the UI offers what the rules allow: modification, no migration
      assertThat(uiConfig(app)).containsEntry("canOperate", true).containsEntry("canMigrate", false);
    }

    @Test
    void theMigrateRoleMayMigrateAndReadButNothingElse() {
      app.as("migrator", "m");
      assertThat(uiConfig(app)).containsEntry("canOperate", false).containsEntry("canMigrate", true)
          .containsEntry("canDelete", false);
      assertThat(app.post(MIGRATE, MIGRATE_A).status()).isEqualTo(501);
      assertThat(app.post(MODIFY, ACTIVATE_A).status()).isEqualTo(403);
      assertThat(app.post(CANCEL, "{}").status()).isEqualTo(403);
      assertThat(app.post("/v2/process-instances/search", "{}").status()).isEqualTo(200);
    }
  }

  /** {@code operations.deletion-role: delete}: deleting finished instances is the delete role's alone. */
  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithDeletionLimitedToARoleOfItsOwn {

    private static final String DELETE_ACTIVE = "/v2/process-instances/1001/deletion";

    private TestWebapp app;

    @BeforeAll
    void start(EmbeddedSearchStore node, SearchStore store) {
      app = OperationsAccessTest.start(node, store, Map.of(
          "flowpipe.webapp.security.basic-auth", true,
          "flowpipe.webapp.operations.deletion-role", "delete",
          "flowpipe.webapp.security.users[0].username", "operator",
          "flowpipe.webapp.security.users[0].password", "o",
          "flowpipe.webapp.security.users[0].roles", "write",
          "flowpipe.webapp.security.users[1].username", "deleter",
          "flowpipe.webapp.security.users[1].password", "d",
          "flowpipe.webapp.security.users[1].roles", "delete"));
    }

    @AfterAll
    void stop() {
      app.close();
    }

    @Test
    void theWriteRoleMayCancelButNotDelete() {
      app.as("operator", "o");
      assertThat(app.post(DELETE_ACTIVE, "{}").status()).isEqualTo(403);
      assertThat(app.post("/v2/process-instances/deletion", "{\"filter\": {}}").status()).isEqualTo(403);
      assertThat(app.post(CANCEL, "{}").status()).isEqualTo(501);
      assertThat(uiConfig(app)).containsEntry("canOperate", true).containsEntry("canDelete", false);
    }

    @Test
    void theDeleteRoleMayDeleteAndReadButNothingElse() {
      app.as("deleter", "d");
      assertThat(uiConfig(app)).containsEntry("canOperate", false).containsEntry("canMigrate", false)
          .containsEntry("canDelete", true);
      // past the access rules: the fixture's instance 1001 is active, which the deletion refuses
      assertThat(app.post(DELETE_ACTIVE, "{}").status()).isEqualTo(409);
      assertThat(app.post(CANCEL, "{}").status()).isEqualTo(403);
      assertThat(app.post(MIGRATE, MIGRATE_A).status()).isEqualTo(403);
      assertThat(app.post("/v2/process-instances/search", "{}").status()).isEqualTo(200);
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithoutAuthentication {

    private TestWebapp off;
    private TestWebapp on;

    @BeforeAll
    void start(EmbeddedSearchStore node, SearchStore store) {
      off = OperationsAccessTest.start(node, store, Map.of());
      on = OperationsAccessTest.start(node, store, Map.of("flowpipe.webapp.operations.enabled", true));
    }

    @AfterAll
    void stop() {
      off.close();
      on.close();
    }

    @Test
    void theOperationsAreOffUnlessSwitchedOn() {
      assertThat(off.post(CANCEL, "{}").status()).isEqualTo(403);
      assertThat(on.post(CANCEL, "{}").status()).isEqualTo(501);
    }

    @Test
    void aGatewayThatCannotBeReachedIsAnswered503WithRetryAfter(EmbeddedSearchStore node, SearchStore store)
        throws Exception {
      int closed;
      try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
        closed = socket.getLocalPort(); // free once closed: nothing listens there
      }
      try (TestWebapp unreachable = OperationsAccessTest.start(node, store, Map.of(
          "flowpipe.webapp.operations.enabled", true,
          "flowpipe.webapp.operations.gateway-address", "127.0.0.1:" + closed,
          "flowpipe.webapp.operations.request-timeout", "5s"))) {
        TestWebapp.Answer answer = unreachable.post(CANCEL, "{}");

        assertThat(answer.status()).as(answer.body()).isEqualTo(503);
        assertThat(answer.header("Retry-After")).isEqualTo("1");
        assertThat(answer.contentType()).startsWith("application/problem+json");
      }
    }

    @Test
    void aGatewayThatTakesTheConnectionButNeverAnswersIsAnswered504(EmbeddedSearchStore node, SearchStore store)
        throws Exception {
      // a listener that accepts and then stays silent: the command may or may not have been carried out
      try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
          TestWebapp app = OperationsAccessTest.start(node, store, Map.of(
              "flowpipe.webapp.operations.enabled", true,
              "flowpipe.webapp.operations.gateway-address", "127.0.0.1:" + silent.getLocalPort(),
              "flowpipe.webapp.operations.request-timeout", "1s"))) {
        TestWebapp.Answer answer = app.post(CANCEL, "{}");

        assertThat(answer.status()).as(answer.body()).isEqualTo(504);
        assertThat(answer.contentType()).startsWith("application/problem+json");
      }
    }
  }
}
