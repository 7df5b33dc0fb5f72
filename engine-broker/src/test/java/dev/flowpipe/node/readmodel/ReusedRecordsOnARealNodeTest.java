package dev.flowpipe.node.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import io.camunda.zeebe.client.ZeebeClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker hands the exporter one record object per value type and fills it again for the next record: a document
 * change that reads its record after {@code export()} returned reads another record. This shows where it bites on a
 * real node: wherever a change waits for its document's base to be read from the store (a document too large to keep
 * in memory, the memory of written documents off, a restart). The oracle is what the client sent and the keys the
 * broker answered it with, never the exporter's own output.
 */
class ReusedRecordsOnARealNodeTest {

  /** The prefix of a node process's own embedded store (the default); a {@link TwoTaskNode} has its own. */
  private static final String NODE_PROCESS_PREFIX = "flowpipe";
  /**
   * Instances per run. The client works them off one after another, so the exporter sees the same stream per instance
   * whatever the count, and a reused record spoils each instance's documents with about the same chance: at 100 the
   * exporter before the plain-data changes got between 38 and 197 of the 200 variables or jobs of a case wrong (at
   * least 19%), so 30 (60 variables and 60 jobs a run) leave a clean run on that exporter a chance below 0.81^60, about
   * 3 in a million. The long version, with the 300 instances of the original report:
   * {@code -Dflowpipe.reused-records.instances=300} (see benchmarks/README.md).
   */
  private static final int INSTANCES = Integer.getInteger("flowpipe.reused-records.instances", 30);
  // above the 16 KB up to which the exporter keeps a written document in memory: updates read it back from the store
  private static final int BIG_VALUE_LENGTH = 20_000;

  /** Both tasks of {@link #INSTANCES} new instances, run to the end in the read model. */
  private static TwoTaskInstances runBothTasks(TwoTaskNode node, String run) {
    TwoTaskInstances instances = new TwoTaskInstances(run, BIG_VALUE_LENGTH);
    try (ZeebeClient client = node.node().client()) {
      instances.create(client, INSTANCES).runTask(client, 1).runTask(client, 2);
    }
    awaitCompleted(node.node().store().client(), node.prefix(), instances.instanceKeys());
    return instances;
  }

  private static void awaitCompleted(SearchStore store, String prefix, List<Long> instances) {
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    await("every instance COMPLETED in the read model").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
          for (long instance : instances) {
            assertThat(store.get(index, String.valueOf(instance)))
                .hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "COMPLETED"));
          }
        });
  }

  /** Until the store holds a document of every variable the client set so far. */
  private static void awaitInStore(SearchStore store, String prefix, TwoTaskInstances run) {
    String index = ReadModelIndex.VARIABLE.indexName(prefix);
    await("every variable of the run in the read model").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
          store.refresh(index);
          for (long instance : run.instanceKeys()) {
            assertThat(store.findByField(index, "processInstanceKey", instance, 100))
                .hasSize(run.expectedVariables(instance).size());
          }
        });
  }

  private static void assertEveryDocumentBelongsToItsInstance(SearchStore store, String prefix,
      TwoTaskInstances run) {
    InstanceOwnership.Report report = new InstanceOwnership(store, prefix).of(run);
    assertThat(report.allRight()).as(report.toString()).isTrue();
  }

  /** Default exporter settings: the 20,000-character values are too large to keep, their updates read the store. */
  @Nested
  @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
  class WithDefaultSettings {

    @RegisterExtension static final TwoTaskNode NODE = new TwoTaskNode(Map.of());

    @Test
    @Order(1)
    void everyVariableAndJobBelongsToItsInstance() {
      assertEveryDocumentBelongsToItsInstance(NODE.node().store().client(), NODE.prefix(), runBothTasks(NODE, "a"));
    }

    @Test
    @Order(2)
    void variablesUpdatedAfterARestartBelongToTheirInstance() {
      TestNode node = NODE.node();
      TwoTaskInstances run = new TwoTaskInstances("r", BIG_VALUE_LENGTH);
      try (ZeebeClient client = node.client()) {
        run.create(client, INSTANCES).runTask(client, 1);
      }
      awaitInStore(node.store().client(), NODE.prefix(), run);
      // a clean stop: the exporter writes all it holds; after the start it remembers no document (and the broker
      // exports the log again from its last snapshot: see AfterASigkill)
      node.stop();
      node.start();
      try (ZeebeClient client = node.client()) {
        run.runTask(client, 2);
      }
      awaitCompleted(node.store().client(), NODE.prefix(), run.instanceKeys());
      assertEveryDocumentBelongsToItsInstance(node.store().client(), NODE.prefix(), run);
    }
  }

  /** Without the exporter's memory of written documents every update reads its base: short values and jobs too. */
  @Nested
  class WithoutRecentDocuments {

    @RegisterExtension
    static final TwoTaskNode NODE = new TwoTaskNode(Map.of("flowpipe.exporter.recent-documents", 0));

    @Test
    void everyVariableAndJobBelongsToItsInstance() {
      assertEveryDocumentBelongsToItsInstance(NODE.node().store().client(), NODE.prefix(), runBothTasks(NODE, "b"));
    }
  }

  /**
   * A node killed with SIGKILL in the middle of the second tasks. Before the second tasks the store holds every
   * document of the first; bulks wait up to a second, so the newest updates are likely still unwritten at the kill
   * (not checked: the store dies with the node). The broker exports again from the position of its last snapshot (none
   * in a run this short: from the start of the log), so the replay goes over documents the store already holds and
   * fills in what the kill lost; then the rest of the second tasks.
   */
  @Nested
  class AfterASigkill {

    private static final Map<String, Object> SETTINGS = Map.of(
        "flowpipe.flow-control.enabled", false, // see TwoTaskNode
        "flowpipe.exporter.index-refresh-interval", "100ms",
        "flowpipe.exporter.bulk.delay", "1s");

    @Test
    void aReplayOverDocumentsTheStoreHoldsLeavesEveryDocumentWithItsInstance(@TempDir Path temp) throws Exception {
      Path data = temp.resolve("data");
      TwoTaskInstances run = new TwoTaskInstances("k", BIG_VALUE_LENGTH);
      try (NodeProcess node = NodeProcess.start(data, SETTINGS);
          ZeebeClient client = node.client();
          SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.storeUrl()))) {
        client.newDeployResourceCommand().addProcessModel(TwoTaskInstances.PROCESS, "two-tasks.bpmn").send().join();
        run.create(client, INSTANCES).runTask(client, 1);
        awaitInStore(store, NODE_PROCESS_PREFIX, run);
        run.runTask(client, 2, INSTANCES * 3 / 5);
        node.kill();
      }
      try (NodeProcess node = NodeProcess.start(data, SETTINGS);
          ZeebeClient client = node.client();
          SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.storeUrl()))) {
        // before any new command, only a replay hands the exporter variable records: as many as the log holds means
        // all of them again, among them those of the first tasks, whose documents the store held before the kill
        ExporterMeters meters = new ExporterMeters(node.httpPort());
        await("the broker exports every variable record of the log again").atMost(Duration.ofSeconds(60))
            .until(() -> meters.recordsHandedOver("VARIABLE"), n -> n >= run.variableRecords());
        run.runTask(client, 2);
        awaitCompleted(store, NODE_PROCESS_PREFIX, run.instanceKeys());
        assertEveryDocumentBelongsToItsInstance(store, NODE_PROCESS_PREFIX, run);
      }
    }
  }
}
