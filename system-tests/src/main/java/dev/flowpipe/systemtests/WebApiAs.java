package dev.flowpipe.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** A node's web API as one basic-auth user: searches, reads and commands, each answer checked for its status. */
public final class WebApiAs {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final int httpPort;
  private final String authorization;

  public WebApiAs(int httpPort, String user, String password) {
    this.httpPort = httpPort;
    this.authorization = "Basic " + Base64.getEncoder().encodeToString(
        (user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** {@code POST /v2/<entity>/search}, which must answer 200. */
  public JsonNode search(String entity, String request) throws IOException, InterruptedException {
    return expect(200, "POST", "/v2/" + entity + "/search", request);
  }

  /** A GET, which must answer 200. */
  public JsonNode get(String path) throws IOException, InterruptedException {
    return expect(200, "GET", path, null);
  }

  /** A request that must answer {@code status}; its JSON body. */
  public JsonNode expect(int status, String method, String path, String body) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", authorization)
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build();
    HttpResponse<String> answer = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != status) {
      throw new IllegalStateException(method + " " + path + " answered " + answer.statusCode() + ", expected "
          + status + ": " + answer.body());
    }
    return JSON.readTree(answer.body());
  }
}
