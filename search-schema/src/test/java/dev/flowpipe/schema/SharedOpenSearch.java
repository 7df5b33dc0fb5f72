package dev.flowpipe.schema;

import dev.flowpipe.schema.embedded.EmbeddedOpenSearch;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.UUID;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One real OpenSearch (the embedded child JVM) for all tests of this JVM: started on first use, stopped when the test
 * run ends. Tests get a {@link SearchStore} on it and keep apart by using {@link #uniquePrefix()} for their indices.
 */
public final class SharedOpenSearch implements ParameterResolver {

  private static final String KEY = "shared-opensearch";

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == SearchStore.class
        || parameter.getParameter().getType() == EmbeddedOpenSearch.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Running running =
        context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
            .getOrComputeIfAbsent(KEY, key -> Running.start(), Running.class);
    return parameter.getParameter().getType() == SearchStore.class ? running.client : running.node;
  }

  public static String uniquePrefix() {
    return "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  }

  private record Running(EmbeddedOpenSearch node, SearchStore client)
      implements ExtensionContext.Store.CloseableResource {

    static Running start() {
      try {
        EmbeddedOpenSearch node =
            EmbeddedOpenSearch.start(Files.createTempDirectory("shared-opensearch"), EmbeddedOpenSearch.Settings.forTests());
        return new Running(node, SearchStoreConnector.connect(StoreConnection.of(node.url())));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      client.close();
      node.close();
    }
  }
}
