package dev.flowpipe.node.edges;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.flowpipe.node.edges.EdgeNodes.READY;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real node whose store stops taking the exporter's writes, for real: a write block on the read-model index (the
 * store refuses each document with 403) and then the whole cluster read-only (it refuses each bulk as a whole). The
 * exporter's health turns DOWN with the store's reason within seconds, and once the block is lifted every instance is
 * in the read model: nothing lost.
 */
class StoreRefusingWritesOnANodeTest {

  @TempDir Path temp;

  private NodeProcess node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void blockedWritesTurnTheExporterDownWithTheStoresReasonAndNothingIsLostOnceLifted() throws Exception {
    node = NodeProcess.launch(temp.resolve("data"), Map.of("flowpipe.exporter.retry.max-backoff", "1s"))
        .awaitReady("/actuator/health/readiness", READY);
    String storeUrl = node.storeUrl();
    String readModel = ReadModelIndex.sharedIndexName("flowpipe");
    Set<Long> instances = new HashSet<>();
    try (ZeebeClient client = node.client();
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(storeUrl))) {
      client.newDeployResourceCommand()
          .addProcessModel(Bpmn.createExecutableProcess("blocked").startEvent().endEvent().done(), "blocked.bpmn")
          .send().join();
      instances.add(create(client));
      awaitInReadModel(store, instances);

      // a write block on the read-model index: each document refused with 403
      StoreAdmin.put(storeUrl, "/" + readModel + "/_settings", "{\"index.blocks.write\": true}");
      long blockedAt = System.nanoTime();
      for (int i = 0; i < 5; i++) {
        instances.add(create(client));
      }
      String down = awaitExporterDown();
      System.out.printf("index write block: fault to exporter health DOWN %d ms: %s%n", millisSince(blockedAt), down);
      assertThat(down).contains("HTTP 403").contains("cluster_block_exception").contains("index write");

      StoreAdmin.put(storeUrl, "/" + readModel + "/_settings", "{\"index.blocks.write\": null}");
      awaitInReadModel(store, instances);
      awaitExporterUp();

      // the whole store read-only: each bulk refused as a whole
      StoreAdmin.put(storeUrl, "/_cluster/settings", "{\"persistent\": {\"cluster.blocks.read_only\": true}}");
      blockedAt = System.nanoTime();
      for (int i = 0; i < 5; i++) {
        instances.add(create(client));
      }
      down = awaitExporterDown();
      System.out.printf("cluster read-only: fault to exporter health DOWN %d ms: %s%n", millisSince(blockedAt), down);
      assertThat(down).contains("HTTP 403").contains("cluster_block_exception");
      assertThat(node.get("/actuator/health").statusCode()).as("the node's health is DOWN too").isEqualTo(503);

      StoreAdmin.put(storeUrl, "/_cluster/settings", "{\"persistent\": {\"cluster.blocks.read_only\": null}}");
      awaitInReadModel(store, instances);
      awaitExporterUp();
    }
    String log = node.log();
    assertThat(log.lines().filter(line -> line.contains("refuses the exporter's")).count())
        .as("each refusal logged once, not per retry").isEqualTo(2);
  }

  private static long create(ZeebeClient client) {
    return client.newCreateInstanceCommand().bpmnProcessId("blocked").latestVersion().send().join()
        .getProcessInstanceKey();
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  private String awaitExporterDown() {
    String[] body = new String[1];
    try {
      await("exporter health DOWN").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
        body[0] = node.get("/actuator/health/exporter").body();
        return body[0].contains("\"status\":\"DOWN\"");
      });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("exporter health not DOWN: " + body[0] + "; the node's log ends:\n" + node.logTail(), e);
    }
    return body[0];
  }

  private void awaitExporterUp() {
    await("exporter health UP").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> node.get("/actuator/health/exporter").body().startsWith("{\"status\":\"UP\""));
  }

  private static void awaitInReadModel(SearchStore store, Set<Long> instances) {
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName("flowpipe");
    await("every instance in the read model").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> {
          for (long key : instances) {
            assertThat(store.get(index, String.valueOf(key))).as("instance " + key).isPresent();
          }
        });
  }
}
