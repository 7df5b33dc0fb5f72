package dev.flowpipe.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.NodeProcess;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.worker.JobWorker;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node as a user runs it: its own process, stopped with SIGTERM or killed with SIGKILL. Neither may leave the
 * embedded OpenSearch running, and SIGTERM must lose nothing. Two node starts in all: the node started again after the
 * SIGTERM is the one killed with SIGKILL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeProcessTest {

  /** The node's default {@code flowpipe.shutdown-timeout}: the longest a stop signal may take while serving. */
  private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path temp;

  private final List<NodeProcess> started = new ArrayList<>();
  /** The node the SIGTERM case started again on its data, for the SIGKILL case; null if that case failed early. */
  private NodeProcess restarted;

  @AfterAll
  void killLeftovers() {
    started.forEach(NodeProcess::close);
  }

  private NodeProcess startNode(Path data) throws IOException {
    NodeProcess node = NodeProcess.start(data, Map.of());
    started.add(node);
    return node;
  }

  @Test
  @Order(1)
  void sigtermShutsDownCleanlyAndLosesNothing() throws Exception {
    Path data = temp.resolve("data");
    NodeProcess node = startNode(data);
    ProcessHandle store = node.embeddedStore();
    Set<Long> instances = ConcurrentHashMap.newKeySet();
    Set<Long> jobsDone = ConcurrentHashMap.newKeySet();
    try (ZeebeClient client = node.client()) {
      client
          .newDeployResourceCommand()
          .addProcessModel(
              Bpmn.createExecutableProcess("sigterm").startEvent().serviceTask("t", t -> t.zeebeJobType("t"))
                  .endEvent().done(),
              "sigterm.bpmn")
          .send()
          .join();
      for (int i = 0; i < 20; i++) {
        instances.add(
            client.newCreateInstanceCommand().bpmnProcessId("sigterm").latestVersion().send().join()
                .getProcessInstanceKey());
      }
      try (JobWorker worker =
          client.newWorker().jobType("t")
              .handler(
                  (jobs, job) -> {
                    // no retry: the node must serve a light load from its first seconds (FreshNodeRefusesNothingTest)
                    jobs.newCompleteCommand(job.getKey()).send().join();
                    jobsDone.add(job.getProcessInstanceKey());
                  })
              .pollInterval(Duration.ofMillis(50))
              .open()) {
        await().atMost(Duration.ofSeconds(60)).until(() -> jobsDone.containsAll(instances));
      }
    }

    long start = System.nanoTime();
    assertThat(node.terminate(SHUTDOWN_TIMEOUT)).as("node exits after SIGTERM").isTrue();
    long shutdownMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(shutdownMillis).as("exited within flowpipe.shutdown-timeout (its default) while serving; log:\n"
        + node.logTail()).isLessThanOrEqualTo(SHUTDOWN_TIMEOUT.toMillis());
    assertThat(store.isAlive()).as("embedded OpenSearch stopped with the node").isFalse();
    assertThat(NodeProcess.storesOn(data)).as("no store left on the node's data").isEmpty();
    String log = node.log();
    // the node was launched without identity-sdk (NodeProcess leaves it out, as the distribution does), which this
    // test's own class path has: the broker ran and served without it
    assertThat(System.getProperty("java.class.path")).contains("identity-sdk");
    assertThat(log.strip()).as("the node's output opens with the engine's licence").startsWith("-----")
        .contains("Camunda License 1.0", "non-production use");
    assertThat(log).contains("broker closed in").contains("embedded OpenSearch stopped");
    System.out.println("SIGTERM to exit: " + shutdownMillis + " ms");

    // every instance whose job was completed before SIGTERM ends up COMPLETED in the read model after a restart:
    // what the exporter had not acknowledged is exported again from the last acknowledged position
    restarted = startNode(data);
    try (SearchStore search = SearchStoreConnector.connect(StoreConnection.of(restarted.storeUrl()))) {
      String index = ReadModelIndex.PROCESS_INSTANCE.indexName("flowpipe");
      await("all instances COMPLETED in the store after the restart")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                for (long key : instances) {
                  assertThat(search.get(index, String.valueOf(key)))
                      .hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "COMPLETED"));
                }
              });
    }
  }

  @Test
  @Order(2)
  void killingTheNodeWithSigkillStopsTheEmbeddedStoreToo() throws Exception {
    NodeProcess node = restarted != null ? restarted : startNode(temp.resolve("killed"));
    ProcessHandle store = node.embeddedStore();

    node.kill(); // SIGKILL: no shutdown hook runs in the node; returns once its children have exited

    assertThat(store.isAlive()).as("embedded OpenSearch exits after the node was killed").isFalse();
  }
}
