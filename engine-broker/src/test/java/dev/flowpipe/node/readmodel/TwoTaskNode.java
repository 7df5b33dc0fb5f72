package dev.flowpipe.node.readmodel;

import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.ScratchDirectories;
import io.camunda.zeebe.client.ZeebeClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.util.FileSystemUtils;

/**
 * One real node ({@link TestNode}) for the tests of a class, with the {@link TwoTaskInstances} process deployed, flow
 * control off and further settings of the class's own, writing to the test JVM's one store ({@link SharedOpenSearch})
 * under a prefix of its own; started before its tests, stopped and deleted after them.
 */
final class TwoTaskNode implements BeforeAllCallback, AfterAllCallback {

  private final Map<String, Object> settings;
  private Path data;
  private TestNode node;
  private String prefix;
  // the class that started the node: JUnit calls an enclosing class's extension for each @Nested class too
  private Class<?> startedBy;

  /** @param settings node settings ({@code flowpipe.*} keys) besides the test defaults */
  TwoTaskNode(Map<String, Object> settings) {
    this.settings = settings;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    if (node != null) {
      return;
    }
    startedBy = context.getRequiredTestClass();
    data = ScratchDirectories.create("two-task-node");
    prefix = SharedOpenSearch.uniquePrefix();
    node = new TestNode(data)
        // flow control is not what these tests are about (it is being redesigned): off, so no command is refused
        .with("flowpipe.flow-control.enabled", false)
        // the test JVM's one store, under a prefix of its own, instead of an embedded store of the node's
        .with("flowpipe.store.url", SharedOpenSearch.sharedNode(context).url())
        .with("flowpipe.exporter.index-prefix", prefix);
    settings.forEach(node::with);
    node.start();
    try (ZeebeClient client = node.client()) {
      client.newDeployResourceCommand().addProcessModel(TwoTaskInstances.PROCESS, "two-tasks.bpmn").send().join();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (context.getRequiredTestClass() != startedBy) {
      return;
    }
    if (node != null) {
      node.close();
      node = null;
    }
    FileSystemUtils.deleteRecursively(data);
  }

  TestNode node() {
    return node;
  }

  /** The prefix of the read model's indices. */
  String prefix() {
    return prefix;
  }
}
