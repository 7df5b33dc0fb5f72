package dev.flowpipe.schema.store;

import com.fasterxml.jackson.databind.JsonNode;
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

  /** Fails naming the URL and the version when this build is not made for this version of the product. */
  public void requireSupported(String version, URI url) {
    if (this == ELASTICSEARCH && !version.startsWith("9.")) {
      throw new IllegalStateException(
          "the store at " + url + " is Elasticsearch " + version
              + "; this build supports Elasticsearch 9.x (the version its tests run against)");
    }
  }
}
