package dev.flowpipe.node.edges;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Changes a real store's settings over its REST API, as an operator would (blocks, read-only switches). */
final class StoreAdmin {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private StoreAdmin() {}

  static String put(String storeUrl, String path, String json) throws IOException, InterruptedException {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(storeUrl + path))
        .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IllegalStateException("PUT " + path + ": HTTP " + response.statusCode() + " " + response.body());
    }
    return response.body();
  }
}
