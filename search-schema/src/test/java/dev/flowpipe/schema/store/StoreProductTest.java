package dev.flowpipe.schema.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** Telling the two products apart by their answers to {@code GET /} (the real nodes: SearchStoreConnectorTest). */
class StoreProductTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  @Test
  void openSearchNamesItsDistribution() throws Exception {
    JsonNode root = json("""
        {"name": "n", "cluster_name": "c", "version": {"distribution": "opensearch", "number": "3.8.0",
         "build_type": "tar", "minimum_wire_compatibility_version": "2.19.0"},
         "tagline": "The OpenSearch Project: https://opensearch.org/"}""");

    assertThat(StoreProduct.identify(root, null)).hasValue(StoreProduct.OPENSEARCH);
  }

  @Test
  void elasticsearchIsKnownByItsTaglineItsBuildFlavorOrItsProductHeader() throws Exception {
    assertThat(StoreProduct.identify(json("""
        {"name": "n", "version": {"number": "9.5.2", "build_flavor": "default"}, "tagline": "You Know, for Search"}"""),
        null)).hasValue(StoreProduct.ELASTICSEARCH);
    assertThat(StoreProduct.identify(json("{\"version\": {\"number\": \"9.5.2\", \"build_flavor\": \"default\"}}"), null))
        .hasValue(StoreProduct.ELASTICSEARCH);
    assertThat(StoreProduct.identify(json("{\"version\": {\"number\": \"9.5.2\"}}"), "Elasticsearch"))
        .hasValue(StoreProduct.ELASTICSEARCH);
  }

  @Test
  void anAnswerOfNeitherIsNoStore() throws Exception {
    assertThat(StoreProduct.identify(json("{\"version\": {\"number\": \"1.0\"}}"), null)).isEmpty();
    assertThat(StoreProduct.identify(json("{\"status\": \"UP\"}"), null)).isEmpty();
  }

  @Test
  void elasticsearchOtherThanNineIsRefusedNamingTheUrlAndTheVersion() {
    URI url = URI.create("http://store:9200");

    assertThatThrownBy(() -> StoreProduct.ELASTICSEARCH.requireSupported("8.19.0", url))
        .hasMessageContaining("http://store:9200").hasMessageContaining("8.19.0");
    StoreProduct.ELASTICSEARCH.requireSupported("9.5.2", url);
    StoreProduct.OPENSEARCH.requireSupported("2.19.0", url);
  }

  @Test
  void elasticsearchTakesAnIndexBodyWithoutTheCodecAndOpenSearchAsItIs() throws Exception {
    // given the read model's settings with best_compression (zstd on Elasticsearch, whose embedded node lacks it)
    String body = """
        {"settings": {"index": {"number_of_shards": 1, "codec": "best_compression"}},
         "mappings": {"properties": {"kind": {"type": "keyword"}}}}""";

    // when / then
    assertThat(StoreProduct.OPENSEARCH.indexBody(body)).isEqualTo(body);
    JsonNode elasticsearch = json(StoreProduct.ELASTICSEARCH.indexBody(body));
    assertThat(elasticsearch.path("settings").path("index").has("codec")).isFalse();
    assertThat(elasticsearch.path("settings").path("index").path("number_of_shards").asInt()).isEqualTo(1);
    assertThat(elasticsearch.path("mappings")).isEqualTo(json(body).path("mappings"));
  }
}
