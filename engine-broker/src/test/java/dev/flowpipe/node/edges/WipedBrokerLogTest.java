package dev.flowpipe.node.edges;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.flowpipe.node.edges.EdgeNodes.READY;
import static dev.flowpipe.node.edges.EdgeNodes.freePort;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real node whose broker data is deleted while its store is kept: the new log's keys and positions start again
 * below the store's, so exporting it would silently mix two logs. The node refuses to start, naming both; with
 * {@code flowpipe.exporter.on-foreign-store=wipe-read-model} it starts, and the read model holds only the new log's.
 */
class WipedBrokerLogTest {

  @TempDir Path temp;

  private NodeProcess node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void aNodeWhoseBrokerDataWasDeletedRefusesToStartOnItsStoreAndStartsWithTheReadModelWipedWhenTold()
      throws Exception {
    Path data = temp.resolve("data");
    // ports kept across the restarts, so the same embedded store data is found at the same address
    Map<String, Object> ports = Map.of("flowpipe.store.embedded.http-port", freePort(),
        "flowpipe.store.embedded.transport-port", freePort());
    node = NodeProcess.launch(data, ports).awaitReady("/actuator/health/readiness", READY);
    Set<Long> oldInstances = run(node, "old-log", 5);
    String storeUrl = node.storeUrl();
    String storesLog;
    try (SearchStore store = SearchStoreConnector.connect(StoreConnection.of(storeUrl))) {
      awaitInstances(store, "old-log", oldInstances);
      storesLog = String.valueOf(store.get(ReadModelIndex.LOG_IDENTITY.indexName("flowpipe"),
          ReadModelIndex.logIdentityId(1)).orElseThrow().get("logId"));
    }
    assertThat(node.terminate(Duration.ofSeconds(60))).isTrue();
    deleteTree(data.resolve("broker"));

    NodeProcess refused = NodeProcess.launch(data, ports);
    node = refused;
    assertThat(refused.awaitExit(READY)).as("the node exits by itself").isTrue();
    assertThat(refused.exitCode()).as("exit code").isNotZero();
    String log = refused.log();
    assertThat(log).contains("refusing to start").contains("partition 1 has no log under")
        .contains(storesLog).contains("flowpipe.exporter.on-foreign-store=wipe-read-model");
    assertThat(NodeProcess.storesOn(data)).as("the embedded store stopped with it").isEmpty();

    node = NodeProcess.launch(data, merged(ports, Map.of("flowpipe.exporter.on-foreign-store", "wipe-read-model")))
        .awaitReady("/actuator/health/readiness", READY);
    Set<Long> newInstances = run(node, "new-log", 3);
    try (SearchStore store = SearchStoreConnector.connect(StoreConnection.of(storeUrl))) {
      awaitInstances(store, "new-log", newInstances);
      String index = ReadModelIndex.PROCESS_INSTANCE.indexName("flowpipe");
      store.refresh(index);
      List<Map<String, Object>> all = store.all(index, 1000);
      assertThat(all).as("only the new log's instances").hasSize(newInstances.size())
          .allSatisfy(instance -> assertThat(instance).containsEntry("bpmnProcessId", "new-log"));
      assertThat(store.get(ReadModelIndex.LOG_IDENTITY.indexName("flowpipe"), ReadModelIndex.logIdentityId(1))
          .orElseThrow().get("logId")).as("the store now names the new log").isNotEqualTo(storesLog);
    }
    assertThat(node.log()).contains("deleted").contains("read model");
  }

  private static Set<Long> run(NodeProcess node, String processId, int count) {
    Set<Long> keys = new HashSet<>();
    try (ZeebeClient client = node.client()) {
      client.newDeployResourceCommand()
          .addProcessModel(Bpmn.createExecutableProcess(processId).startEvent().endEvent().done(), processId + ".bpmn")
          .send().join();
      for (int i = 0; i < count; i++) {
        keys.add(client.newCreateInstanceCommand().bpmnProcessId(processId).latestVersion().send().join()
            .getProcessInstanceKey());
      }
    }
    return keys;
  }

  private static void awaitInstances(SearchStore store, String processId, Set<Long> keys) {
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName("flowpipe");
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      for (long key : keys) {
        assertThat(store.get(index, String.valueOf(key)))
            .hasValueSatisfying(doc -> assertThat(doc).containsEntry("bpmnProcessId", processId));
      }
    });
  }

  private static Map<String, Object> merged(Map<String, Object> a, Map<String, Object> b) {
    Map<String, Object> all = new java.util.LinkedHashMap<>(a);
    all.putAll(b);
    return all;
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
