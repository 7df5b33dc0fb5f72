package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.webapp.api.FieldsOfInstances;
import dev.flowpipe.webapp.query.ApiField;
import dev.flowpipe.webapp.query.Entity;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.yaml.snakeyaml.Yaml;

/** The hand-written OpenAPI document is served and says what the code does: the same paths and the same fields. */
class OpenApiDocumentTest {

  private static final Map<Entity, String> SCHEMA_NAMES = Map.ofEntries(
      Map.entry(Entity.PROCESS_DEFINITIONS, "ProcessDefinition"),
      Map.entry(Entity.PROCESS_INSTANCES, "ProcessInstance"),
      Map.entry(Entity.ELEMENT_INSTANCES, "ElementInstance"), Map.entry(Entity.VARIABLES, "Variable"),
      Map.entry(Entity.INCIDENTS, "Incident"), Map.entry(Entity.JOBS, "Job"),
      Map.entry(Entity.MESSAGE_SUBSCRIPTIONS, "MessageSubscription"),
      Map.entry(Entity.CORRELATED_MESSAGE_SUBSCRIPTIONS, "CorrelatedMessageSubscription"),
      Map.entry(Entity.DECISION_DEFINITIONS, "DecisionDefinition"),
      Map.entry(Entity.DECISION_REQUIREMENTS, "DecisionRequirements"),
      Map.entry(Entity.DECISION_INSTANCES, "DecisionInstance"));

  private static TestWebapp app;
  private static Map<String, Object> document;

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void start() throws Exception {
    app = TestWebapp.start(Map.of("flowpipe.store.url", "http://127.0.0.1:1"));
    try (InputStream in = OpenApiDocumentTest.class.getResourceAsStream("/static/openapi.yaml")) {
      document = new Yaml().load(in);
    }
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  @Test
  void isServedByTheApp() {
    TestWebapp.Answer answer = app.get("/openapi.yaml");

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.body()).startsWith("openapi: 3.0.3");
  }

  /**
   * The routes the app serves that are not API: the UI's own reads and the error page. Everything else a handler
   * serves must be in the document, so a new route without documentation fails here.
   */
  private static final Set<String> NOT_API = Set.of("GET /ui/config", "GET /ui/openapi", "GET /ui/live",
      "GET /ui/export/process-instances.csv");

  @Test
  @SuppressWarnings("unchecked")
  void describesExactlyTheEndpointsTheAppServes() {
    Set<String> documented = new TreeSet<>();
    ((Map<String, Map<String, Object>>) document.get("paths")).forEach(
        (path, operations) -> operations.keySet().forEach(method -> documented.add(method.toUpperCase() + " " + path)));

    Set<String> served = new TreeSet<>();
    RequestMappingHandlerMapping mapping = app.context().getBean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class);
    for (Map.Entry<RequestMappingInfo, HandlerMethod> entry : mapping.getHandlerMethods().entrySet()) {
      for (String pattern : entry.getKey().getPatternValues()) {
        if (entry.getValue().getBeanType().getSimpleName().equals("ProblemErrorController")) {
          continue; // the error page answers every method at server.error.path: problem+json for what arose outside
        }
        var methods = entry.getKey().getMethodsCondition().getMethods().stream().map(Enum::name).toList();
        for (String method : methods.isEmpty() ? List.of("ANY") : methods) {
          for (String path : expand(pattern)) {
            served.add(method + " " + path);
          }
        }
      }
    }

    assertThat(served).as("the routes kept out of the document are served").containsAll(NOT_API);
    served.removeAll(NOT_API);
    assertThat(documented).isEqualTo(served);
  }

  @Test
  @SuppressWarnings("unchecked")
  void describesEveryFieldOfEveryEntity() {
    Map<String, Object> schemas = (Map<String, Object>) ((Map<String, Object>) document.get("components")).get("schemas");
    for (Entity entity : Entity.values()) {
      Map<String, Object> schema = (Map<String, Object>) schemas.get(SCHEMA_NAMES.get(entity));
      Set<String> documented = ((Map<String, Object>) schema.get("properties")).keySet();
      List<String> fields = new ArrayList<>(entity.fields().stream().map(ApiField::name).toList());
      fields.addAll(entity.constantAnswers().keySet());
      FieldsOfInstances.answerField(entity).ifPresent(fields::add);
      if (entity == Entity.DECISION_DEFINITIONS) {
        fields.addAll(dev.flowpipe.webapp.query.SearchRequestParser.REQUIREMENTS_FIELDS.keySet());
      }
      assertThat(documented).as(entity.path()).containsExactlyInAnyOrderElementsOf(fields);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void listsTheValuesOfEveryStateAndTypeAsTheCodeAcceptsThem() {
    Map<String, Object> schemas = (Map<String, Object>) ((Map<String, Object>) document.get("components")).get("schemas");
    for (Entity entity : Entity.values()) {
      Map<String, Object> properties =
          (Map<String, Object>) ((Map<String, Object>) schemas.get(SCHEMA_NAMES.get(entity))).get("properties");
      for (ApiField field : entity.fields()) {
        Object documented = ((Map<String, Object>) properties.get(field.name())).get("enum");
        if (field.vocabulary() == null) {
          assertThat(documented).as(entity.path() + " " + field.name()).isNull();
        } else {
          assertThat((List<String>) documented).as(entity.path() + " " + field.name())
              .containsExactlyElementsOf(field.vocabulary().names());
        }
      }
    }
  }

  @Test
  void isBrowsableFromTheUi() {
    TestWebapp.Answer page = app.get("/api.html");
    TestWebapp.Answer asJson = app.get("/ui/openapi");

    assertThat(app.get("/").body()).contains("<a href=\"api.html\">API</a>");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.body()).contains("<script type=\"module\" src=\"api.js\">");
    assertThat(app.get("/api.js").status()).isEqualTo(200);
    assertThat(asJson.status()).isEqualTo(200);
    assertThat(asJson.json().path("paths").has("/v2/process-instances/search")).isTrue();
    assertThat(asJson.json().path("components").path("schemas").path("ProcessInstance").path("properties")
        .path("state").path("enum").toString()).isEqualTo("[\"ACTIVE\",\"COMPLETED\",\"TERMINATED\"]");
  }

  /** {@code /v2/{entity:a|b}/search} -> {@code /v2/a/search}, {@code /v2/b/search}. */
  private static List<String> expand(String pattern) {
    var matcher = java.util.regex.Pattern.compile("\\{entity:([^}]*)}").matcher(pattern);
    if (!matcher.find()) {
      return List.of(pattern);
    }
    List<String> paths = new ArrayList<>();
    for (String entity : matcher.group(1).split("\\|")) {
      paths.add(pattern.substring(0, matcher.start()) + entity + pattern.substring(matcher.end()));
    }
    return paths;
  }
}
