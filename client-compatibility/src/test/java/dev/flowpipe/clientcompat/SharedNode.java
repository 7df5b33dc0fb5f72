package dev.flowpipe.clientcompat;

import dev.flowpipe.testsupport.ScratchDirectories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Store.CloseableResource;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One node for all of this module's test classes in a test JVM, started by the first class that asks for it (as a
 * parameter of its {@code @BeforeAll}) and killed when the run ends: a node's start is most of a class's time. Its
 * users are those the classes sign in as, all of the {@code write} role. The classes share the read model, so each
 * one scopes its searches and counts to the process ids and keys of its own runs and may run in any order.
 */
final class SharedNode implements ParameterResolver {

  static final String OPERATOR = "operator";
  static final String OPERATOR_PASSWORD = "operator-secret";
  static final String READER_WRITER = "reader-writer";
  static final String READER_WRITER_PASSWORD = "reader-writer-secret";

  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedNode.class);

  /** The node as a resource of the run's root context, which closes it once all classes are done. */
  private record Started(NodeInChildProcess node) implements CloseableResource {

    @Override
    public void close() {
      node.close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == NodeInChildProcess.class;
  }

  @Override
  public NodeInChildProcess resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Started.class, key -> start(), Started.class)
        .node();
  }

  private static Started start() {
    try {
      return new Started(NodeInChildProcess.startWithWriters(ScratchDirectories.create("client-compatibility"),
          Map.of(OPERATOR, OPERATOR_PASSWORD, READER_WRITER, READER_WRITER_PASSWORD)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
