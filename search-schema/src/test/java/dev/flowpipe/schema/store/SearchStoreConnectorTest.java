package dev.flowpipe.schema.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SharedOpenSearch.class)
class SearchStoreConnectorTest {

  @Test
  void identifiesOpenSearch(EmbeddedSearchStore node) {
    var identity = SearchStoreConnector.identify(StoreConnection.of(node.url()));

    assertThat(identity.product()).isEqualTo(StoreProduct.OPENSEARCH);
    assertThat(identity.version()).startsWith("3.8");
  }

  @Test
  void anUnreachableUrlFailsAtOnceNamingIt() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String url = "http://127.0.0.1:" + closedPort;

    assertThatThrownBy(() -> SearchStoreConnector.connect(StoreConnection.of(url)))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining(url)
        .hasMessageContaining("unreachable");
  }

  @Test
  void aServerThatIsNotASearchStoreIsRefusedNamingTheUrl() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      byte[] body = "<html>hello</html>".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      assertThatThrownBy(() -> SearchStoreConnector.connect(StoreConnection.of(url)))
          .hasMessageContaining(url)
          .hasMessageContaining("does not look like OpenSearch or Elasticsearch");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void credentialsAreNeverPrinted() {
    var connection = new StoreConnection(java.net.URI.create("http://h:1"), "user", "s3cret", null, null);

    assertThat(connection.toString()).doesNotContain("s3cret").contains("****");
  }
}
