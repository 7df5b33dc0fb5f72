package dev.flowpipe.webapp;

import dev.flowpipe.schema.SharedOpenSearch;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;

/**
 * One standalone web app on {@link ReadModelFixture} in the shared OpenSearch, for the read-only API tests of this JVM
 * (they share it: none writes): started on first use, closed when the test run ends. Tests take it as a
 * {@link TestWebapp} parameter; the store and node stay available as with {@link SharedOpenSearch}.
 */
public class FixtureWebapp extends SharedOpenSearch {

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TestWebapp.class || super.supportsParameter(parameter, context);
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    if (parameter.getParameter().getType() != TestWebapp.class) {
      return super.resolveParameter(parameter, context);
    }
    return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent("fixture-webapp", key -> new Running(start(context)), Running.class).app();
  }

  private TestWebapp start(ExtensionContext context) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store(context), prefix, "1s");
    return TestWebapp.start(
        Map.of("flowpipe.store.url", node(context).url(), "flowpipe.store.index-prefix", prefix));
  }

  private record Running(TestWebapp app) implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() {
      app.close();
    }
  }
}
