package dev.flowpipe.schema.opensearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.embedded.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreContractTest;
import dev.flowpipe.schema.store.StoreProduct;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The store contract on a real OpenSearch 3.8. */
@ExtendWith(SharedOpenSearch.class)
class OpenSearchStoreTest extends SearchStoreContractTest {

  private final SearchStore store;
  private final String url;

  OpenSearchStoreTest(SearchStore store, EmbeddedSearchStore node) {
    super(store, node.url());
    this.store = store;
    this.url = node.url();
  }

  @Test
  void indicesItCreatesDoNotMergeOnRefreshUnlessTheirBodySaysSo() throws Exception {
    String quiet = SharedOpenSearch.uniquePrefix() + "-quiet";
    String merging = SharedOpenSearch.uniquePrefix() + "-merging";

    store.createIndex(quiet, "{\"settings\":{\"index\":{\"number_of_shards\":1}}}");
    store.createIndex(merging, "{\"settings\":{\"index.merge_on_flush.enabled\":true}}");

    assertThat(setting(quiet, "index.merge_on_flush.enabled")).isEqualTo("false");
    assertThat(setting(quiet, "index.number_of_shards")).isEqualTo("1");
    assertThat(setting(merging, "index.merge_on_flush.enabled")).isEqualTo("true");
  }

  @Test
  void aBodyThatIsNotAnObjectIsRefusedBeforeAnyRequest() {
    assertThatThrownBy(() -> OpenSearchStore.withOpenSearchDefaults("[1]"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a JSON object");
  }

  /** One index setting as the node reports it (flat name). */
  private String setting(String index, String name) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(url + "/" + index + "/_settings?flat_settings=true")).build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode settings = new ObjectMapper().readTree(response.body()).path(index).path("settings");
    return settings.path(name).asText(null);
  }

  @Test
  void isTheOpenSearchAdapter() {
    assertThat(store.product()).isEqualTo(StoreProduct.OPENSEARCH);
    assertThat(store.version()).startsWith("3.8");
  }
}
