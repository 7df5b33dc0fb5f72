package dev.flowpipe.schema;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.UUID;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One real OpenSearch (the embedded child JVM) for all tests of this JVM: started on first use, stopped when the test
 * run ends. Tests get a {@link SearchStore} on it (or the {@link EmbeddedSearchStore} itself) and keep apart by using
 * {@link #uniquePrefix()} for their indices. {@link SharedElasticsearch} does the same with a bare Elasticsearch.
 */
public class SharedOpenSearch implements ParameterResolver {

  private final EmbeddedSearchStore.Engine engine;

  public SharedOpenSearch() {
    this(EmbeddedSearchStore.Engine.OPENSEARCH);
  }

  protected SharedOpenSearch(EmbeddedSearchStore.Engine engine) {
    this.engine = engine;
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == SearchStore.class
        || parameter.getParameter().getType() == EmbeddedSearchStore.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == SearchStore.class ? store(context) : node(context);
  }

  /** A client on the shared node, which starts on first use. */
  protected SearchStore store(ExtensionContext context) {
    return running(context).client;
  }

  /** The shared node, started on first use. */
  protected EmbeddedSearchStore node(ExtensionContext context) {
    return running(context).node;
  }

  private Running running(ExtensionContext context) {
    return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent("shared-" + engine, key -> Running.start(engine), Running.class);
  }

  /** The shared OpenSearch node, for an extension that cannot take it as a parameter (started on first use). */
  public static EmbeddedSearchStore sharedNode(ExtensionContext context) {
    return new SharedOpenSearch().node(context);
  }

  public static String uniquePrefix() {
    return "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  }

  private record Running(EmbeddedSearchStore node, SearchStore client)
      implements ExtensionContext.Store.CloseableResource {

    static Running start(EmbeddedSearchStore.Engine engine) {
      try {
        EmbeddedSearchStore node =
            EmbeddedSearchStore.start(
                ScratchDirectories.create("shared-" + engine.name().toLowerCase()),
                // C1 only, as the tests' own node and store JVMs: the shared store mostly starts and answers
                // small requests (NodeProcess.TEST_JIT; empty for the JVM's default)
                EmbeddedSearchStore.Settings.forTests(engine).withJvmOptions(
                    NodeProcess.testJitOptions()));
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
