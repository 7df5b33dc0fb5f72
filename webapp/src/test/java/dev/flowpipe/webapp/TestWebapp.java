package dev.flowpipe.webapp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** The standalone web app started in this JVM on a free port, and a small HTTP client for it. */
public final class TestWebapp implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final ConfigurableApplicationContext context;
  private final String baseUrl;
  private String authorization;

  private TestWebapp(ConfigurableApplicationContext context) {
    this.context = context;
    this.baseUrl = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
  }

  public static TestWebapp start(Map<String, Object> properties) {
    List<String> args = new ArrayList<>();
    Map<String, Object> all = new LinkedHashMap<>(properties);
    all.putIfAbsent("server.port", 0);
    all.forEach((key, value) -> args.add("--" + key + "=" + value));
    SpringApplication application = new SpringApplication(WebappApplication.class);
    application.setDefaultProperties(WebappApplication.DEFAULTS);
    return new TestWebapp(application.run(args.toArray(String[]::new)));
  }

  /** {@code POST /v2/<entity>/search}, which must answer 200. */
  public JsonNode search(String entity, String request) {
    Answer answer = post("/v2/" + entity + "/search", request);
    if (answer.status() != 200) {
      throw new AssertionError("expected 200 to " + request + ", was " + answer.status() + ": " + answer.body());
    }
    return answer.json();
  }

  /** One field of every item of a search answer, as text. */
  public static List<String> values(JsonNode answer, String field) {
    List<String> values = new ArrayList<>();
    answer.path("items").forEach(item -> values.add(item.path(field).asText()));
    return values;
  }

  public String baseUrl() {
    return baseUrl;
  }

  public ConfigurableApplicationContext context() {
    return context;
  }

  /** Sends basic-auth credentials with every later request (null: none). */
  public TestWebapp as(String user, String password) {
    authorization =
        user == null
            ? null
            : "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    return this;
  }

  /** An answer: status, headers and body (parsed when JSON). */
  public record Answer(int status, HttpResponse<String> raw) {
    public JsonNode json() {
      try {
        return JSON.readTree(raw.body());
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + raw.body(), e);
      }
    }

    public String header(String name) {
      return raw.headers().firstValue(name).orElse(null);
    }

    public String contentType() {
      return header("Content-Type");
    }

    public String body() {
      return raw.body();
    }
  }

  public Answer post(String path, String json) {
    return send(
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  public Answer post(String path, Object body) {
    try {
      return post(path, JSON.writeValueAsString(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Answer get(String path) {
    return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET());
  }

  public Answer send(HttpRequest.Builder request) {
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    try {
      HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), response);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    context.close();
  }
}
