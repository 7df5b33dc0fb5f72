package dev.flowpipe.node.webapp;

import static dev.flowpipe.testsupport.RoutePolicy.ANONYMOUS;
import static dev.flowpipe.testsupport.RoutePolicy.READER;
import static dev.flowpipe.testsupport.RoutePolicy.WRITER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.RoutePolicy;
import dev.flowpipe.testsupport.RoutePolicy.Access;
import dev.flowpipe.testsupport.RoutePolicy.Caller;
import dev.flowpipe.testsupport.RouteRequests;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.testsupport.ServedRoutes;
import dev.flowpipe.testsupport.ServedRoutes.Route;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every HTTP route of a real node (its web app's handler methods, the actuator's exposed endpoints as the actuator
 * discovers them, and the UI's static files: {@link ServedRoutes}), sent by every kind of caller, with the status class
 * each must get from test-support's {@link RoutePolicy}. A route the policy does not classify fails the test, so a new
 * route cannot go unchecked. Three nodes: authentication on (anonymous, reader, writer, admin), and off, with the
 * operations and the actuator's writes off (the defaults) and on; all three on the test JVM's one store. The server's
 * twin is server's {@code ServerRouteRoleMatrixTest}.
 */
@ExtendWith(SharedOpenSearch.class)
class RouteRoleMatrixTest {

  static int checks;

  /** A node with these settings, its routes discovered, and a way to send each route as a caller. */
  abstract static class Configuration {

    TestNode node;
    List<Route> routes;
    RouteRequests requests;

    abstract Map<String, Object> settings();

    @BeforeAll
    void start(EmbeddedSearchStore store) throws IOException {
      // the test JVM's one store, under a prefix of its own: the routes do not depend on where the store runs
      node = new TestNode(ScratchDirectories.create("route-matrix"))
          .with("flowpipe.store.url", store.url())
          .with("flowpipe.exporter.index-prefix", SharedOpenSearch.uniquePrefix());
      settings().forEach(node::with);
      node.start();
      routes = ServedRoutes.of(node.context());
      requests = new RouteRequests(node.httpPort());
    }

    @AfterAll
    void stop() {
      if (node != null) {
        node.close();
      }
      System.out.printf("[route-matrix] route x caller checks so far: %d%n", checks);
    }

    /** Sends every route as each caller: no answer of another class than the policy's. */
    void check(Map<Caller, Predicate<Access>> allowed, int anonymousRefusal) {
      checks += routes.size() * allowed.size();
      assertThat(requests.answersAgainstThePolicy(routes, allowed, anonymousRefusal)).as("answers against the policy")
          .isEmpty();
    }

    /** Every state-changing route another site's page makes the browser send: refused. */
    void checkCrossSiteWrites(Map<Caller, Predicate<Access>> allowed) {
      RouteRequests.CrossSiteOutcome outcome = requests.crossSiteWrites(routes, allowed);
      checks += outcome.sent();
      assertThat(outcome.sent()).as("cross-site requests sent").isPositive();
      assertThat(outcome.wrong()).as("cross-site writes not refused").isEmpty();
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithAuthentication extends Configuration {

    /** Each user what its roles grant; anonymous only the public routes. */
    final Map<Caller, Predicate<Access>> allowed = RoutePolicy.byGrants();

    @Override
    Map<String, Object> settings() {
      return RoutePolicy.withAuthentication();
    }

    @Test
    void everyRouteIsClassifiedAndTheActuatorAndTheUiAreAmongThem() {
      assertThat(routes).extracting(Route::policyKey).allSatisfy(key ->
          assertThat(RoutePolicy.TABLE).as("the policy table classifies %s", key).containsKey(key));
      assertThat(routes).extracting(Route::path)
          .contains("/actuator/flowControl", "/actuator/health", "/index.html", "/app.js", "/v2/process-instances");
    }

    @Test
    void eachCallerGetsWhatItsRolesAllowAndNoMore() {
      // anonymous: asked to sign in (401) for anything but the public routes
      check(allowed, 401);
    }

    @Test
    void aWriteAnotherSitesPageSendsWithTheUsersCachedCredentialsIsRefused() {
      checkCrossSiteWrites(allowed);
    }

    @Test
    void aReadersFlowControlWriteIsRefusedAndChangesNothing() {
      String before = requests.get("/actuator/flowControl", READER);
      Route write = new Route("POST /actuator/flowControl", "POST", "/actuator/flowControl");

      assertThat(requests.send(write, READER, "{\"writeLimit\": 1}", Map.of()).statusCode()).isEqualTo(403);
      assertThat(requests.send(write, WRITER, "{\"writeLimit\": 1}", Map.of()).statusCode()).isEqualTo(403);
      assertThat(requests.send(write, ANONYMOUS, "{\"writeLimit\": 1}", Map.of()).statusCode()).isEqualTo(401);
      // the settings (the report's part before the partitions' live figures) are as they were
      String after = requests.get("/actuator/flowControl", READER);
      assertThat(after).startsWith("200 ");
      assertThat(after.substring(0, after.indexOf("\"partitions\"")))
          .isEqualTo(before.substring(0, before.indexOf("\"partitions\"")));
    }

    @Test
    void healthShowsItsDetailsToSignedInUsersOnly() {
      assertThat(requests.get("/actuator/health", ANONYMOUS)).contains("\"status\"").doesNotContain("components")
          .doesNotContain("details");
      assertThat(requests.get("/actuator/health", READER)).contains("\"searchStore\"").contains("\"details\"");
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

    @Test
    void healthShowsItsDetails() {
      assertThat(requests.get("/actuator/health", ANONYMOUS)).contains("\"searchStore\"").contains("\"details\"");
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithoutAuthenticationWithTheWritesSwitchedOn extends Configuration {

    final Map<Caller, Predicate<Access>> allowed = RoutePolicy.anyoneButNobodysRoutes();

    @Override
    Map<String, Object> settings() {
      return RoutePolicy.withoutAuthenticationWritesOn();
    }

    @Test
    void anyoneDoesEverythingButWhatNobodyMay() {
      check(allowed, 403);
    }

    @Test
    void aWriteAnotherSitesPageSendsIsRefused() {
      checkCrossSiteWrites(allowed);
    }
  }
}
