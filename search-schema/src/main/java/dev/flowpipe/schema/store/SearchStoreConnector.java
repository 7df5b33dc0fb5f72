package dev.flowpipe.schema.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.elasticsearch.ElasticsearchStore;
import dev.flowpipe.schema.opensearch.OpenSearchStore;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.net.ssl.SSLException;

/** Asks a store URL what it is ({@code GET /}) and opens the matching adapter. */
public final class SearchStoreConnector {

  private static final ObjectMapper JSON = new ObjectMapper();

  private SearchStoreConnector() {}

  /**
   * Connects to the store, failing at once with a message that names the URL if it cannot be reached, refuses the
   * credentials, or is not a search store.
   */
  public static SearchStore connect(StoreConnection connection) {
    StoreIdentity identity = identify(connection);
    return switch (identity.product()) {
      case OPENSEARCH -> OpenSearchStore.connect(connection, identity.version());
      case ELASTICSEARCH -> {
        if (!identity.version().startsWith("9.")) {
          throw new IllegalStateException(
              "the store at " + connection.url() + " is Elasticsearch " + identity.version()
                  + "; this build supports Elasticsearch 9.x (its client speaks the 9.x API)");
        }
        yield ElasticsearchStore.connect(connection, identity.version());
      }
    };
  }

  /** The product and version behind a URL. */
  public record StoreIdentity(StoreProduct product, String version) {}

  public static StoreIdentity identify(StoreConnection connection) {
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(connection.connectTimeout());
    if (connection.isHttps()) {
      client.sslContext(connection.tls().sslContext());
    }
    HttpClient http = client.build();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(stripTrailingSlash(connection.url().toString()) + "/"))
            .timeout(connection.requestTimeout())
            .GET();
    if (connection.hasCredentials()) {
      String token = connection.username() + ":" + (connection.password() == null ? "" : connection.password());
      request.header(
          "Authorization", "Basic " + Base64.getEncoder().encodeToString(token.getBytes(StandardCharsets.UTF_8)));
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException e) {
      throw new StoreUnavailableException("search store at " + connection.url() + " is unreachable: connection refused", e);
    } catch (SSLException e) {
      throw new StoreUnavailableException("search store at " + connection.url() + " failed the TLS handshake: "
          + e.getMessage() + " (if its certificate is not trusted, " + connection.tls().trustHint()
          + "; if it names another host, use that host in the URL)", e);
    } catch (HttpTimeoutException e) {
      throw new StoreUnavailableException("search store at " + connection.url() + " is unreachable: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new StoreUnavailableException("search store at " + connection.url() + " is unreachable: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while connecting to " + connection.url(), e);
    }
    if (response.statusCode() == 401 || response.statusCode() == 403) {
      throw new IllegalStateException(
          "search store at " + connection.url() + " refused the credentials (HTTP " + response.statusCode() + ")");
    }
    if (response.statusCode() != 200) {
      throw new StoreUnavailableException(
          "search store at " + connection.url() + " answered HTTP " + response.statusCode() + " on GET /");
    }
    try {
      JsonNode version = JSON.readTree(response.body()).path("version");
      String number = version.path("number").asText("unknown");
      StoreProduct product =
          "opensearch".equalsIgnoreCase(version.path("distribution").asText(""))
              ? StoreProduct.OPENSEARCH
              : StoreProduct.ELASTICSEARCH;
      if (version.isMissingNode()) {
        throw new IllegalStateException("no version in the answer");
      }
      return new StoreIdentity(product, number);
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "the server at " + connection.url() + " does not look like OpenSearch or Elasticsearch: " + e.getMessage(), e);
    }
  }

  private static String stripTrailingSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
