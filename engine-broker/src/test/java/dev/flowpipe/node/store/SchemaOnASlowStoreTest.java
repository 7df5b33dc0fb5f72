package dev.flowpipe.node.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.StoreProxy;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A loaded store takes far longer to create an index than to answer a search: the node waits
 * {@code flowpipe.store.schema-timeout} for each answer while it prepares the read model's schema, not the request
 * timeout meant for searches and bulks, and fails naming that key when even that is not enough.
 */
@ExtendWith(SharedOpenSearch.class)
class SchemaOnASlowStoreTest {

  @TempDir Path data;
  private final ScheduledExecutorService releases = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stopReleases() {
    releases.shutdownNow();
  }

  /** Holds the creation of the prefix's shared read-model index, and lets it go {@code seconds} after it arrived. */
  private StoreProxy.HeldRequest holdCreation(StoreProxy proxy, String prefix, int seconds) {
    StoreProxy.HeldRequest held =
        proxy.holdNext("PUT", "/" + Pattern.quote(ReadModelIndex.sharedIndexName(prefix)) + "(\\?.*)?");
    releases.submit(() -> {
      held.awaitArrival();
      releases.schedule(held::release, seconds, TimeUnit.SECONDS);
      return null;
    });
    return held;
  }

  @Nested
  class WhenCreatingTheIndexTakesLongerThanTheRequestTimeout {

    @Test
    void givenASchemaTimeoutLongerThanTheCreationThenTheNodeStartsWithItsSchema(EmbeddedSearchStore store,
        SearchStore direct) throws Exception {
      String prefix = SharedOpenSearch.uniquePrefix();
      try (StoreProxy slow = new StoreProxy(store.url(), null, null)) {
        StoreProxy.HeldRequest held = holdCreation(slow, prefix, 4);

        try (TestNode node = new TestNode(data)
            .with("flowpipe.store.url", slow.url())
            .with("flowpipe.store.request-timeout", "1s")
            .with("flowpipe.store.schema-timeout", "60s")
            .with("flowpipe.exporter.index-prefix", prefix)
            .start()) {

          assertThat(held.path()).as("the creation was held").isNotNull();
          assertThat(node.isRunning()).isTrue();
          assertThat(direct.indexExists(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix))).isTrue();
        }
      }
    }

    @Test
    void givenASchemaTimeoutShorterThanTheCreationThenTheStartFailsNamingTheKey(EmbeddedSearchStore store) throws Exception {
      String prefix = SharedOpenSearch.uniquePrefix();
      try (StoreProxy slow = new StoreProxy(store.url(), null, null)) {
        holdCreation(slow, prefix, 6);
        TestNode node = new TestNode(data)
            .with("flowpipe.store.url", slow.url())
            .with("flowpipe.store.request-timeout", "1s")
            .with("flowpipe.store.schema-timeout", "2s")
            .with("flowpipe.exporter.index-prefix", prefix);

        Throwable failure = catchThrowable(node::start);

        assertThat(allMessages(failure)).contains("flowpipe.store.schema-timeout=PT2S", "no answer within PT2S");
      }
    }
  }

  private static String allMessages(Throwable failure) {
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    return messages.toString();
  }
}
