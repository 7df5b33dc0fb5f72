package dev.flowpipe.benchmarks.scenario.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** A node's web app as a signed-in user of the UI reaches it: JSON requests with HTTP basic authentication. */
public final class WebappClient {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI base;
  private final String authorization;

  public WebappClient(int httpPort, String username, String password) {
    this.base = URI.create("http://127.0.0.1:" + httpPort);
    this.authorization = "Basic " + Base64.getEncoder()
        .encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** An answer: its status, the header a write operation names its position in, and the body as JSON (or null). */
  public record Answer(int status, String writtenPosition, JsonNode json, String body) {}

  public Answer get(String path) {
    return send("GET", path, null);
  }

  public Answer post(String path, String json) {
    return send("POST", path, json);
  }

  /** Sends a request; a body of null sends none. */
  public Answer send(String method, String path, String json) {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
        .header("Authorization", authorization)
        .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
    if (json != null) {
      request.header("Content-Type", "application/json");
    }
    try {
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      String body = response.body();
      JsonNode parsed = null;
      if (response.headers().firstValue("Content-Type").orElse("").contains("json") && !body.isEmpty()) {
        parsed = JSON.readTree(body);
      }
      return new Answer(response.statusCode(), response.headers().firstValue("Flowpipe-Written-Position").orElse(null),
          parsed, body);
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during " + method + " " + path, e);
    }
  }

  /** As {@link #send}, failing with the request and the answer unless the status is {@code expected}. */
  public Answer expect(int expected, String method, String path, String json) {
    Answer answer = send(method, path, json);
    if (answer.status() != expected) {
      throw new IllegalStateException(method + " " + path + " answered " + answer.status() + " (expected " + expected
          + "): " + answer.body());
    }
    return answer;
  }
}
