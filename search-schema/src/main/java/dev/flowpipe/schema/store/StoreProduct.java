package dev.flowpipe.schema.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.util.Optional;

/**
 * The search engine behind a URL, as it names itself on {@code GET /}, and the little that differs between the two
 * for this project: how each says what it is, and which versions this build speaks to. Everything else (requests,
 * answers, errors, TLS, authentication) is the same REST API, sent by one adapter.
 */
public enum StoreProduct {
  OPENSEARCH,
  ELASTICSEARCH;

  private static final String ELASTICSEARCH_TAGLINE = "You Know, for Search";
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Which product answered {@code GET /}: OpenSearch names its distribution ({@code version.distribution}),
   * Elasticsearch has its tagline, a {@code version.build_flavor} and, since 7.14, the {@code X-Elastic-Product}
   * header on every answer.
   *
   * @param root the answer's JSON
   * @param productHeader the {@code X-Elastic-Product} header, or null
   * @return the product, or empty when the answer is neither's
   */
  public static Optional<StoreProduct> identify(JsonNode root, String productHeader) {
    JsonNode version = root.path("version");
    if (!version.path("number").isTextual()) {
      return Optional.empty();
    }
    if ("opensearch".equalsIgnoreCase(version.path("distribution").asText(""))) {
      return Optional.of(OPENSEARCH);
    }
    if (ELASTICSEARCH_TAGLINE.equals(root.path("tagline").asText()) || version.has("build_flavor")
        || "Elasticsearch".equals(productHeader)) {
      return Optional.of(ELASTICSEARCH);
    }
    return Optional.empty();
  }

  /**
   * An index body as this product takes it. OpenSearch keeps the read model's stored fields with
   * {@code best_compression} (DEFLATE, in Java). Elasticsearch's {@code best_compression} is zstd through a native
   * library that an Elasticsearch started from its artifacts (as the embedded one is) does not have: its shard fails at
   * the first flush. So for Elasticsearch the codec setting is left out (its default, LZ4); everything else is sent as
   * it is.
   */
  public String indexBody(String bodyJson) {
    if (this == OPENSEARCH || bodyJson == null || !bodyJson.contains("\"codec\"")) {
      return bodyJson;
    }
    try {
      JsonNode body = JSON.readTree(bodyJson);
      if (body.path("settings").path("index") instanceof ObjectNode index) {
        index.remove("codec");
      }
      if (body.path("settings") instanceof ObjectNode settings) {
        settings.remove("index.codec");
      }
      return JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      return bodyJson; // not JSON: the store says so in its answer
    }
  }

  /** Fails naming the URL and the version when this build is not made for this version of the product. */
  public void requireSupported(String version, URI url) {
    if (this == ELASTICSEARCH && !version.startsWith("9.")) {
      throw new IllegalStateException(
          "the store at " + url + " is Elasticsearch " + version
              + "; this build supports Elasticsearch 9.x (the version its tests run against)");
    }
  }
}
