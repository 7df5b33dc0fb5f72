package dev.flowpipe.node.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.SharedOpenSearch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.Resource;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Every HTTP route of a real node (its web app's handler methods, the actuator's exposed endpoints as the actuator
 * discovers them, and the UI's static files), sent by every kind of caller, with the status class each must get
 * computed from the small policy table below. A route the table does not classify fails the test, so a new route
 * cannot go unchecked. Three nodes: authentication on (anonymous, reader, writer, admin), and off, with the
 * operations and the actuator's writes off (the defaults) and on; all three on the test JVM's one store.
 */
@ExtendWith(SharedOpenSearch.class)
class RouteRoleMatrixTest {

  /** What a route needs. */
  enum Access { PUBLIC, READ, WRITE, ADMIN, NOBODY }

  /**
   * The policy, written out independently of the security configuration: {@code METHOD path}, path variables as
   * {@code {name}} (a variable's regex dropped); {@code GET static} stands for every file of the UI.
   */
  static final Map<String, Access> POLICY = Map.ofEntries(
      Map.entry("GET /actuator/health", Access.PUBLIC),
      Map.entry("GET /actuator/health/{path}", Access.PUBLIC),
      Map.entry("GET /actuator", Access.READ),
      Map.entry("GET /actuator/info", Access.READ),
      Map.entry("GET /actuator/metrics", Access.READ),
      Map.entry("GET /actuator/metrics/{requiredMetricName}", Access.READ),
      Map.entry("GET /actuator/prometheus", Access.READ),
      Map.entry("GET /actuator/flowControl", Access.READ),
      Map.entry("POST /actuator/flowControl", Access.ADMIN),
      Map.entry("GET static", Access.READ),
      Map.entry("GET /ui/config", Access.READ),
      Map.entry("GET /ui/openapi", Access.READ),
      Map.entry("GET /error", Access.READ),
      Map.entry("POST /error", Access.NOBODY),
      Map.entry("POST /v2/{entity}/search", Access.READ),
      Map.entry("GET /v2/{entity}/{key}", Access.READ),
      Map.entry("GET /v2/process-definitions/{key}/xml", Access.READ),
      Map.entry("POST /v2/process-definitions/statistics/process-instances", Access.READ),
      Map.entry("POST /v2/process-definitions/{processDefinitionKey}/statistics/element-instances", Access.READ),
      Map.entry("GET /v2/process-instances/{processInstanceKey}/statistics/element-instances", Access.READ),
      Map.entry("GET /v2/process-instances/{processInstanceKey}/sequence-flows", Access.READ),
      Map.entry("POST /v2/process-definitions/statistics/process-instances-by-version", Access.READ),
      Map.entry("POST /v2/incidents/statistics/process-instances-by-error", Access.READ),
      Map.entry("POST /v2/incidents/statistics/process-instances-by-definition", Access.READ),
      Map.entry("GET /v2/batch-operations/{batchOperationKey}", Access.READ),
      Map.entry("GET /v2/topology", Access.READ),
      Map.entry("GET /v2/status", Access.PUBLIC),
      Map.entry("POST /v2/batch-operation-items/search", Access.READ),
      Map.entry("POST /v2/process-instances", Access.WRITE),
      Map.entry("POST /v2/process-instances/{processInstanceKey}/cancellation", Access.WRITE),
      // with operations.migration-role at its default (write); the migrate role of its own: OperationsAccessTest
      Map.entry("POST /v2/process-instances/{processInstanceKey}/modification", Access.WRITE),
      Map.entry("POST /v2/process-instances/{processInstanceKey}/migration", Access.WRITE),
      Map.entry("POST /v2/incidents/{incidentKey}/resolution", Access.WRITE),
      Map.entry("PATCH /v2/jobs/{key}", Access.WRITE),
      Map.entry("PUT /v2/element-instances/{elementInstanceKey}/variables", Access.WRITE),
      Map.entry("POST /v2/messages/publication", Access.WRITE),
      Map.entry("POST /v2/process-instances/cancellation", Access.WRITE),
      Map.entry("POST /v2/process-instances/incident-resolution", Access.WRITE));

  /** A caller: a user of the configuration with authentication, or nobody. */
  record Caller(String name, String user, String password) {}

  static final Caller ANONYMOUS = new Caller("anonymous", null, null);
  static final Caller READER = new Caller("reader", "reader", "r");
  static final Caller WRITER = new Caller("writer", "writer", "w");
  static final Caller ADMIN = new Caller("admin", "admin", "a");

  /** One concrete request for a route. */
  record Route(String policyKey, String method, String path) {}

  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Pattern VARIABLE = Pattern.compile("\\{\\*?([A-Za-z]+)(?::([^}]+))?}");
  private static final String SAMPLE_KEY = "2251799813685249";
  static int checks;

  /** A node with these settings, its routes discovered, and a way to send each route as a caller. */
  abstract static class Configuration {

    TestNode node;
    List<Route> routes;

    abstract Map<String, Object> settings();

    @BeforeAll
    void start(EmbeddedSearchStore store) throws IOException {
      // the test JVM's one store, under a prefix of its own: the routes do not depend on where the store runs
      node = new TestNode(Files.createTempDirectory("route-matrix"))
          .with("flowpipe.store.url", store.url())
          .with("flowpipe.exporter.index-prefix", SharedOpenSearch.uniquePrefix());
      settings().forEach(node::with);
      node.start();
      routes = routes(node.context());
    }

    @AfterAll
    void stop() {
      if (node != null) {
        node.close();
      }
      System.out.printf("[route-matrix] route x caller checks so far: %d%n", checks);
    }

    /** Sends every route as each caller; collects every answer whose class differs from the policy's. */
    void check(Map<Caller, java.util.function.Function<Access, Boolean>> allowedByCaller,
        java.util.function.Function<Access, Integer> refusal) {
      List<String> wrong = new ArrayList<>();
      for (Route route : routes) {
        Access access = POLICY.get(route.policyKey());
        allowedByCaller.forEach((caller, allowed) -> {
          int status = send(node, route, caller);
          checks++;
          boolean expectAllowed = allowed.apply(access);
          int expectedRefusal = refusal.apply(access);
          boolean refused = status == 401 || status == 403;
          if (expectAllowed ? refused : status != (caller.user() == null ? expectedRefusal : 403)) {
            wrong.add(caller.name() + " " + route.method() + " " + route.path() + " (" + access + "): " + status
                + ", expected " + (expectAllowed ? "neither 401 nor 403" : caller.user() == null ? expectedRefusal
                    : 403));
          }
        });
      }
      assertThat(wrong).as("answers against the policy").isEmpty();
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithAuthentication extends Configuration {

    @Override
    Map<String, Object> settings() {
      Map<String, Object> settings = new LinkedHashMap<>();
      settings.put("flowpipe.webapp.security.basic-auth", true);
      List<Caller> users = List.of(READER, WRITER, ADMIN);
      for (int i = 0; i < users.size(); i++) {
        settings.put("flowpipe.webapp.security.users[" + i + "].username", users.get(i).user());
        settings.put("flowpipe.webapp.security.users[" + i + "].password", users.get(i).password());
        settings.put("flowpipe.webapp.security.users[" + i + "].roles", users.get(i).name().equals("reader") ? "read"
            : users.get(i).name().equals("writer") ? "write" : "admin");
      }
      return settings;
    }

    @Test
    void everyRouteIsClassifiedAndTheActuatorAndTheUiAreAmongThem() {
      assertThat(routes).extracting(Route::policyKey).allSatisfy(key ->
          assertThat(POLICY).as("the policy table classifies %s", key).containsKey(key));
      assertThat(routes).extracting(Route::path)
          .contains("/actuator/flowControl", "/actuator/health", "/index.html", "/app.js", "/v2/process-instances");
    }

    @Test
    void eachCallerGetsWhatItsRolesAllowAndNoMore() {
      Map<Caller, java.util.function.Function<Access, Boolean>> callers = new LinkedHashMap<>();
      callers.put(ANONYMOUS, access -> access == Access.PUBLIC);
      callers.put(READER, access -> access == Access.PUBLIC || access == Access.READ);
      callers.put(WRITER, access -> access == Access.PUBLIC || access == Access.READ || access == Access.WRITE);
      callers.put(ADMIN, access -> access == Access.PUBLIC || access == Access.READ || access == Access.ADMIN);
      // anonymous: asked to sign in (401) for anything but the public routes
      check(callers, access -> 401);
    }

    @Test
    void aReadersFlowControlWriteIsRefusedAndChangesNothing() {
      String before = get(node, "/actuator/flowControl", READER);
      Route write = new Route("POST /actuator/flowControl", "POST", "/actuator/flowControl");

      assertThat(send(node, write, READER, "{\"writeLimit\": 1}")).isEqualTo(403);
      assertThat(send(node, write, WRITER, "{\"writeLimit\": 1}")).isEqualTo(403);
      assertThat(send(node, write, ANONYMOUS, "{\"writeLimit\": 1}")).isEqualTo(401);
      // the settings (the report's part before the partitions' live figures) are as they were
      String after = get(node, "/actuator/flowControl", READER);
      assertThat(after).startsWith("200 ");
      assertThat(after.substring(0, after.indexOf("\"partitions\"")))
          .isEqualTo(before.substring(0, before.indexOf("\"partitions\"")));
    }

    @Test
    void healthShowsItsDetailsToSignedInUsersOnly() {
      assertThat(get(node, "/actuator/health", ANONYMOUS)).contains("\"status\"").doesNotContain("components")
          .doesNotContain("details");
      assertThat(get(node, "/actuator/health", READER)).contains("\"searchStore\"").contains("\"details\"");
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
      check(Map.of(ANONYMOUS, access -> access == Access.PUBLIC || access == Access.READ), access -> 403);
    }

    @Test
    void healthShowsItsDetails() {
      assertThat(get(node, "/actuator/health", ANONYMOUS)).contains("\"searchStore\"").contains("\"details\"");
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithoutAuthenticationWithTheWritesSwitchedOn extends Configuration {

    @Override
    Map<String, Object> settings() {
      return Map.of("flowpipe.webapp.operations.enabled", true,
          "flowpipe.webapp.security.actuator-writes-enabled", true);
    }

    @Test
    void anyoneDoesEverythingButWhatNobodyMay() {
      check(Map.of(ANONYMOUS, access -> access != Access.NOBODY), access -> 403);
    }
  }

  /** The routes of a running node: handler methods, exposed actuator operations, the UI's files. */
  static List<Route> routes(ConfigurableApplicationContext context) throws IOException {
    List<Route> routes = new ArrayList<>();
    RequestMappingHandlerMapping mapping =
        context.getBean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class);
    for (RequestMappingInfo info : mapping.getHandlerMethods().keySet()) {
      Set<RequestMethod> methods = info.getMethodsCondition().getMethods();
      for (RequestMethod method : methods.isEmpty() ? Set.of(RequestMethod.GET, RequestMethod.POST) : methods) {
        for (String pattern : info.getPatternValues()) {
          concrete(pattern).forEach(path -> routes.add(new Route(method.name() + " " + policyPath(pattern),
              method.name(), path)));
        }
      }
    }
    String base = context.getBean(WebEndpointProperties.class).getBasePath();
    routes.add(new Route("GET " + base, "GET", base));
    for (WebEndpointsSupplier supplier : context.getBeansOfType(WebEndpointsSupplier.class).values()) {
      for (ExposableWebEndpoint endpoint : supplier.getEndpoints()) {
        for (WebOperation operation : endpoint.getOperations()) {
          String pattern = base + "/" + operation.getRequestPredicate().getPath();
          String method = operation.getRequestPredicate().getHttpMethod().name();
          concrete(pattern).forEach(path -> routes.add(new Route(method + " " + policyPath(pattern), method, path)));
        }
      }
    }
    routes.add(new Route("GET static", "GET", "/"));
    for (Resource file : context.getResources("classpath*:static/**")) {
      String url = file.getURL().toString();
      if (file.isReadable() && !url.endsWith("/")) {
        routes.add(new Route("GET static", "GET", url.substring(url.lastIndexOf("/static/") + "/static".length())));
      }
    }
    return routes.stream().distinct().toList();
  }

  /** The pattern as the policy table writes it: variables as {@code {name}}. */
  static String policyPath(String pattern) {
    return VARIABLE.matcher(pattern).replaceAll("{$1}");
  }

  /** Concrete paths for a pattern: each alternative of a variable's regex, else a sample value. */
  static List<String> concrete(String pattern) {
    Matcher variable = VARIABLE.matcher(pattern);
    if (!variable.find()) {
      return List.of(pattern);
    }
    List<String> values = new ArrayList<>();
    if (variable.group(2) != null && variable.group(2).matches("[a-z|-]+")) {
      values.addAll(List.of(variable.group(2).split("\\|")));
    } else {
      values.add(switch (variable.group(1)) {
        case "path" -> "liveness";
        case "requiredMetricName" -> "jvm.memory.used";
        default -> SAMPLE_KEY;
      });
    }
    Set<String> paths = new TreeSet<>();
    for (String value : values) {
      paths.addAll(concrete(pattern.substring(0, variable.start()) + value + pattern.substring(variable.end())));
    }
    return List.copyOf(paths);
  }

  static int send(TestNode node, Route route, Caller caller) {
    return send(node, route, caller, "{}");
  }

  /** The status of a route's request: a JSON body of {@code {}} on anything but a GET, as a program sends it. */
  static int send(TestNode node, Route route, Caller caller, String body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort()
        + route.path()));
    if (route.method().equals("GET")) {
      request.GET();
    } else {
      request.header("Content-Type", "application/json")
          .method(route.method(), HttpRequest.BodyPublishers.ofString(body));
    }
    return exchange(request, caller).statusCode();
  }

  static String get(TestNode node, String path, Caller caller) {
    HttpResponse<String> response = exchange(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort()
        + path)).GET(), caller);
    return response.statusCode() + " " + response.body();
  }

  private static HttpResponse<String> exchange(HttpRequest.Builder request, Caller caller) {
    if (caller.user() != null) {
      request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
          (caller.user() + ":" + caller.password()).getBytes(StandardCharsets.UTF_8)));
    }
    try {
      return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
