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
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node as a user runs it: its own process, stopped with SIGTERM or killed with SIGKILL. Neither may leave the
 * embedded OpenSearch running, and SIGTERM must lose nothing.
 */
class NodeProcessTest {

  @TempDir Path temp;

  private final List<NodeProcess> started = new ArrayList<>();

  @AfterEach
  void killLeftovers() {
    started.forEach(NodeProcess::close);
  }

  private NodeProcess startNode(Path data) throws IOException {
    NodeProcess node = NodeProcess.start(data, Map.of());
    started.add(node);
    return node;
  }

  @Test
  void theNodeStartsWithoutIdentitySdkAndNamesTheCamundaLicenseFirst() throws Exception {
    // the test class path has the SDK (compile only, for the broker's SystemContext): the node runs without it
    String classpath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.contains("identity-sdk"))
            .collect(Collectors.joining(File.pathSeparator));
    assertThat(classpath).isNotEqualTo(System.getProperty("java.class.path"));
    Path data = temp.resolve("data");
    NodeProcess node =
        NodeProcess.launch(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx768m", "-cp", classpath,
                NodeApplication.class.getName()),
            Map.of(), data,
            Map.of("flowpipe.store.embedded.classpath", System.getProperty("flowpipe.store.embedded.classpath")));
    started.add(node);
    node.awaitReady("/actuator/health/readiness");

    try (ZeebeClient client = node.client()) {
      assertThat(client.newTopologyRequest().send().join().getBrokers()).hasSize(1);
    }
    assertThat(node.log().strip())
        .as("the node's output opens with the engine's licence")
        .startsWith("-----")
        .contains("Camunda License 1.0", "non-production use");
  }

  @Test
  void killingTheNodeWithSigkillStopsTheEmbeddedStoreToo() throws Exception {
    NodeProcess node = startNode(temp.resolve("data"));
    ProcessHandle store = node.embeddedStore();

    node.kill(); // SIGKILL: no shutdown hook runs in the node; returns once its children have exited

    assertThat(store.isAlive()).as("embedded OpenSearch exits after the node was killed").isFalse();
  }

  @Test
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
    assertThat(node.terminate(Duration.ofSeconds(60))).as("node exits after SIGTERM").isTrue();
    long shutdownMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(store.isAlive()).as("embedded OpenSearch stopped with the node").isFalse();
    String log = node.log();
    assertThat(log).contains("broker closed in").contains("embedded OpenSearch stopped");
    System.out.println("SIGTERM to exit: " + shutdownMillis + " ms");

    // every instance whose job was completed before SIGTERM ends up COMPLETED in the read model after a restart:
    // what the exporter had not acknowledged is exported again from the last acknowledged position
    NodeProcess restarted = startNode(data);
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
}
