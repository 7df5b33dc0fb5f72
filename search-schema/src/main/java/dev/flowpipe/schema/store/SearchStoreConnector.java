package dev.flowpipe.schema.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.rest.HttpStoreTransport;
import dev.flowpipe.schema.rest.JsonStore;
import dev.flowpipe.schema.rest.StoreAnswer;
import dev.flowpipe.schema.rest.StoreRequest;
import dev.flowpipe.schema.rest.StoreTransport;
import java.io.IOException;

/** Asks a store URL what it is ({@code GET /}) and opens the store adapter on it. */
public final class SearchStoreConnector {

  private static final ObjectMapper JSON = new ObjectMapper();

  private SearchStoreConnector() {}

  /**
   * Connects to the store, failing at once with a message that names the URL if it cannot be reached, refuses the
   * credentials, is not a search store, or is a version this build does not speak to.
   */
  public static SearchStore connect(StoreConnection connection) {
    StoreTransport transport = HttpStoreTransport.open(connection);
    try {
      StoreIdentity identity = identify(connection, transport);
      identity.product().requireSupported(identity.version(), connection.url());
      return new JsonStore(transport, identity.product(), identity.version());
    } catch (RuntimeException e) {
      transport.close();
      throw e;
    }
  }

  /** Opens the adapter on a store known to be {@code identity}, without asking it; the first request connects. */
  public static SearchStore open(StoreConnection connection, StoreIdentity identity) {
    return new JsonStore(HttpStoreTransport.open(connection), identity.product(), identity.version());
  }

  /** The product and version behind a URL. */
  public record StoreIdentity(StoreProduct product, String version) {}

  public static StoreIdentity identify(StoreConnection connection) {
    try (StoreTransport transport = HttpStoreTransport.open(connection)) {
      return identify(connection, transport);
    }
  }

  private static StoreIdentity identify(StoreConnection connection, StoreTransport transport) {
    StoreAnswer answer = transport.send(StoreRequest.of("GET", "/"));
    AnswerClass kind = AnswerClass.ofAnswer(answer.status(), answer.text());
    if (kind == AnswerClass.REFUSED) {
      throw new IllegalStateException(
          "search store at " + connection.url() + " refused the credentials (HTTP " + answer.status() + ")");
    }
    if (answer.status() != 200) {
      throw new StoreUnavailableException(
          "search store at " + connection.url() + " answered HTTP " + answer.status() + " on GET /");
    }
    String notAStore = "the server at " + connection.url() + " does not look like OpenSearch or Elasticsearch: ";
    JsonNode root;
    try {
      root = JSON.readTree(answer.body());
    } catch (IOException e) {
      throw new IllegalStateException(notAStore + e.getMessage(), e);
    }
    StoreProduct product = StoreProduct.identify(root, answer.header("X-Elastic-Product"))
        .orElseThrow(() -> new IllegalStateException(notAStore + "no product and version in its answer to GET /"));
    return new StoreIdentity(product, root.path("version").path("number").asText());
  }
}
