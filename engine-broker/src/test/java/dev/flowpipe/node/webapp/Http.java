package dev.flowpipe.node.webapp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** A small HTTP client for the node's web app. */
public final class Http {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  private Http() {}

  /** A status with the raw response. */
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
  }

  public static Answer post(String url, String json) {
    return send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  /** A request of any method with a JSON body (PATCH, PUT...). */
  public static Answer send(String method, String url, String json) {
    return send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
        .method(method, HttpRequest.BodyPublishers.ofString(json)));
  }

  public static Answer get(String url) {
    return send(HttpRequest.newBuilder(URI.create(url)).GET());
  }

  private static Answer send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), response);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
