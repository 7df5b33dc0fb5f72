package dev.flowpipe.schema.elasticsearch;

import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.SearchStoreContractTest;
import dev.flowpipe.schema.store.StoreConnection;
import org.junit.jupiter.api.AfterAll;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

/**
 * The store contract on the full Elasticsearch distribution (with its native libraries and modules) in a container.
 * Runs only where Docker is available and is skipped elsewhere; the bare node of {@code ElasticsearchStoreTest} covers
 * the same contract on every machine.
 */
@Testcontainers(disabledWithoutDocker = true)
class ElasticsearchContainerStoreTest extends SearchStoreContractTest {

  private static final ElasticsearchContainer CONTAINER = start();
  private static final SearchStore STORE =
      SearchStoreConnector.connect(StoreConnection.of("http://" + CONTAINER.getHttpHostAddress()));

  private static ElasticsearchContainer start() {
    ElasticsearchContainer container =
        new ElasticsearchContainer(DockerImageName.parse("elasticsearch:9.1.5"))
            .withEnv("xpack.security.enabled", "false")
            .withEnv("ES_JAVA_OPTS", "-Xms512m -Xmx512m");
    container.start();
    return container;
  }

  ElasticsearchContainerStoreTest() {
    super(STORE, "http://" + CONTAINER.getHttpHostAddress());
  }

  @AfterAll
  static void stop() {
    STORE.close();
    CONTAINER.stop();
  }
}
