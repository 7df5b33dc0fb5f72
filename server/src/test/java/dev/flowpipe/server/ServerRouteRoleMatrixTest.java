package dev.flowpipe.server;

import static dev.flowpipe.testsupport.RoutePolicy.ADMIN;
import static dev.flowpipe.testsupport.RoutePolicy.ANONYMOUS;
import static dev.flowpipe.testsupport.RoutePolicy.READER;
import static dev.flowpipe.testsupport.RoutePolicy.WRITER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.RoutePolicy;
import dev.flowpipe.testsupport.RoutePolicy.Access;
import dev.flowpipe.testsupport.RoutePolicy.Caller;
import dev.flowpipe.testsupport.RouteRequests;
import dev.flowpipe.testsupport.ServedRoutes;
import dev.flowpipe.testsupport.ServedRoutes.Route;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Every HTTP route of the server (as the running server lists them: {@link ServedRoutes}), sent by every kind of
 * caller, answered as test-support's {@link RoutePolicy} says: the same policy as the node's
 * ({@code RouteRoleMatrixTest} in engine-broker), so the server's web app, operations and actuator cannot drift from
 * it. Writes another site's page makes the browser send with the user's credentials are refused, and the server's
 * {@code /actuator/flowControl} takes no write from anyone (its settings are its configuration's). Three servers on the
 * test JVM's one store: authentication on, off (the defaults), off with the writes switched on. No gateway answers
 * here: who may call a route does not depend on it, and an operation that passes the checks fails on the gateway,
 * which is no 401 or 403.
 */
@ExtendWith(SharedOpenSearch.class)
class ServerRouteRoleMatrixTest {

  /** A server with these settings, its routes listed by itself, and the requests that send them as callers. */
  abstract static class Configuration {

    ConfigurableApplicationContext server;
    List<Route> routes;
    RouteRequests requests;

    abstract Map<String, Object> settings();

    @BeforeAll
    void start(EmbeddedSearchStore store) throws IOException {
      Map<String, Object> settings = new LinkedHashMap<>();
      settings.put("server.port", 0);
      settings.put("flowpipe.store.url", store.url());
      settings.put("flowpipe.store.index-prefix", SharedOpenSearch.uniquePrefix());
      // nothing listens there: an operation that gets past the security fails on the gateway (the client retries an
      // unreachable gateway until the timeout: 2 s made the matrix take a minute)
      settings.put("flowpipe.server.gateway.address", "127.0.0.1:" + NodeProcess.freePort());
      settings.put("flowpipe.server.gateway.request-timeout", "300ms");
      // and the topology reads (/v2/topology, an operation's partition count) give up as soon
      settings.put("flowpipe.server.flow-control.request-timeout", "300ms");
      settings.putAll(settings());
      List<String> arguments = new ArrayList<>();
      settings.forEach((key, value) -> arguments.add("--" + key + "=" + value));
      server = new SpringApplicationBuilder(ServerApplication.class).run(arguments.toArray(String[]::new));
      routes = ServedRoutes.of(server);
      requests = new RouteRequests(((ServletWebServerApplicationContext) server).getWebServer().getPort());
    }

    @AfterAll
    void stop() {
      if (server != null) {
        server.close();
      }
    }

    void check(Map<Caller, Predicate<Access>> allowed, int anonymousRefusal) {
      assertThat(requests.answersAgainstThePolicy(routes, allowed, anonymousRefusal)).as("answers against the policy")
          .isEmpty();
    }

    void checkCrossSiteWrites(Map<Caller, Predicate<Access>> allowed) {
      RouteRequests.CrossSiteOutcome outcome = requests.crossSiteWrites(routes, allowed);
      assertThat(outcome.sent()).as("cross-site requests sent").isPositive();
      assertThat(outcome.wrong()).as("cross-site writes not refused").isEmpty();
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithAuthentication extends Configuration {

    @Override
    Map<String, Object> settings() {
      return RoutePolicy.withAuthentication();
    }

    @Test
    void everyRouteIsClassifiedAndTheOperationsTheActuatorAndTheUiAreAmongThem() {
      assertThat(routes).extracting(Route::policyKey).allSatisfy(key ->
          assertThat(RoutePolicy.TABLE).as("the policy table classifies %s", key).containsKey(key));
      assertThat(routes).extracting(Route::policyKey).contains("GET /actuator/flowControl",
          "GET /actuator/health/{path}", "GET static", "POST /v2/process-instances/{processInstanceKey}/cancellation");
    }

    @Test
    void eachCallerGetsWhatItsRolesAllowAndNoMore() {
      // anonymous: asked to sign in (401) for anything but the public routes
      check(RoutePolicy.byGrants(), 401);
    }

    @Test
    void aWriteAnotherSitesPageSendsWithTheUsersCachedCredentialsIsRefused() {
      checkCrossSiteWrites(RoutePolicy.byGrants());
    }

    @Test
    void aFlowControlWriteIsRefusedToReadersAndWritersAndChangesNothingForAnyone() {
      String before = requests.get("/actuator/flowControl", READER);
      Route write = new Route("POST /actuator/flowControl", "POST", "/actuator/flowControl");
      String body = "{\"writeLimit\": 1, \"enabled\": false}";

      assertThat(requests.send(write, ANONYMOUS, body, Map.of()).statusCode()).isEqualTo(401);
      assertThat(requests.send(write, READER, body, Map.of()).statusCode()).isEqualTo(403);
      assertThat(requests.send(write, WRITER, body, Map.of()).statusCode()).isEqualTo(403);
      // the server's endpoint has no write operation: an admin is let through the security and finds none
      assertThat(requests.send(write, ADMIN, body, Map.of()).statusCode()).isEqualTo(405);
      // the settings (the report's part before the partitions' live figures) are as they were
      String after = requests.get("/actuator/flowControl", READER);
      assertThat(before).startsWith("200 ").contains("\"enabled\":true");
      assertThat(after.substring(0, after.indexOf("\"partitions\"")))
          .isEqualTo(before.substring(0, before.indexOf("\"partitions\"")));
    }

    @Test
    void healthShowsItsDetailsToSignedInUsersOnly() {
      assertThat(requests.get("/actuator/health", ANONYMOUS)).contains("\"status\"").doesNotContain("components")
          .doesNotContain("details");
      assertThat(requests.get("/actuator/health", READER)).contains("\"gateway\"").contains("\"searchStore\"");
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithoutAuthenticationByDefault extends Configuration {

    @Override
    Map<String, Object> settings() {
      return Map.of();
    }

    @Test
    void anyoneReadsButNobodyWritesOrChangesTheActuator() {
      check(RoutePolicy.readersOnly(), 403);
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithoutAuthenticationWithTheWritesSwitchedOn extends Configuration {

    @Override
    Map<String, Object> settings() {
      return RoutePolicy.withoutAuthenticationWritesOn();
    }

    @Test
    void anyoneDoesEverythingButWhatNobodyMay() {
      check(RoutePolicy.anyoneButNobodysRoutes(), 403);
    }

    @Test
    void aWriteAnotherSitesPageSendsIsRefused() {
      checkCrossSiteWrites(RoutePolicy.anyoneButNobodysRoutes());
    }
  }
}
