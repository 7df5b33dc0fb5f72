package dev.flowpipe.schema.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.testsupport.StoreProxy;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A store behind basic authentication: the right credentials work for every call, wrong ones fail naming the URL. */
@ExtendWith(SharedOpenSearch.class)
class CredentialsTest {

  private final EmbeddedSearchStore node;
  private StoreProxy secured;

  CredentialsTest(EmbeddedSearchStore node) {
    this.node = node;
  }

  @BeforeEach
  void secureTheStore() throws Exception {
    secured = new StoreProxy(node.url(), "exporter", "s3cret");
  }

  @AfterEach
  void close() {
    secured.close();
  }

  private StoreConnection connection(String username, String password) {
    return new StoreConnection(URI.create(secured.url()), username, password, null, null);
  }

  @Test
  void theRightCredentialsAreUsedForEveryCall() {
    String index = SharedOpenSearch.uniquePrefix() + "-auth";
    try (SearchStore store = SearchStoreConnector.connect(connection("exporter", "s3cret"))) {
      store.createIndex(index, "{\"settings\": {\"number_of_replicas\": 0}}");
      BulkOutcome outcome = store.bulk(List.of(new DocumentWrite(index, "1", 1, Map.of("a", "b"))));

      assertThat(outcome.allApplied()).isTrue();
      assertThat(store.get(index, "1")).isPresent();
      assertThat(store.health()).isIn("green", "yellow");
    }
  }

  @Test
  void wrongOrMissingCredentialsFailAtConnectNamingTheUrl() {
    assertThatThrownBy(() -> SearchStoreConnector.connect(connection("exporter", "wrong")))
        .hasMessageContaining(secured.url())
        .hasMessageContaining("refused the credentials");
    assertThatThrownBy(() -> SearchStoreConnector.connect(connection(null, null)))
        .hasMessageContaining("refused the credentials");
  }
}
