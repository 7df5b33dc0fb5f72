package dev.flowpipe.node.readmodel;

import static dev.flowpipe.node.readmodel.ReadModelFromRealRunsTest.activate;
import static dev.flowpipe.node.readmodel.ReadModelFromRealRunsTest.documents;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.node.webapp.HeadlessChromium;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The legacy path against the real thing: one real node runs Camunda's stock OpenSearch exporter (8.6.0, from the
 * distribution) beside ours, both writing to the node's store, and the importer inside the node
 * ({@code flowpipe.importer.enabled}) imports the stock exporter's raw records into a read model under another prefix.
 * That read model must equal, field by field, the one our exporter wrote from the same log: an oracle that shares
 * nothing with the importer but the handlers.
 */
class LegacyPathEquivalenceTest {

  /** The workload correlates no message: these two are compared (both empty), not required to hold documents. */
  private static final java.util.Set<ReadModelIndex> NO_MESSAGES_IN_THE_WORKLOAD =
      java.util.EnumSet.of(ReadModelIndex.MESSAGE_SUBSCRIPTION, ReadModelIndex.MESSAGE_CORRELATION,
          // nor decisions: ReadModelFromRealRunsTest covers them (the stock exporter's decision records are imported
          // by the same handlers)
          ReadModelIndex.DECISION_DEFINITION, ReadModelIndex.DECISION_REQUIREMENTS, ReadModelIndex.DECISION_INSTANCE);

  private static final String STOCK = "flowpipe.broker.additional-exporters.stock.";
  private static final String OURS = "flowpipe";
  private static final String IMPORTED = "imported";

  @TempDir Path data;

  @Test
  void theImportedReadModelEqualsTheOneOurExporterWrote() throws Exception {
    int storePort = TestNode.freePort();
    String storeUrl = "http://127.0.0.1:" + storePort;
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("flowpipe.store.embedded.http-port", storePort);
    settings.put("flowpipe.broker.partitions-count", 2);
    settings.put("flowpipe.exporter.variable-value-limit", 100);
    settings.put(STOCK + "class-name", "io.camunda.zeebe.exporter.opensearch.OpensearchExporter");
    settings.put(STOCK + "args.url", storeUrl);
    settings.put(STOCK + "args.bulk.delay", 1);
    // the job-batch records carry activations (worker, deadline); the stock exporter leaves them out by default
    settings.put(STOCK + "args.index.jobBatch", true);
    // the importer inside the node, reading the stock exporter's records from the node's own store
    settings.put("flowpipe.importer.enabled", true);
    settings.put("flowpipe.importer.index-prefix", IMPORTED);
    settings.put("flowpipe.importer.variable-value-limit", 100);
    settings.put("flowpipe.importer.page-size", 50);
    settings.put("flowpipe.importer.discovery-interval", "500ms");
    try (NodeProcess node = NodeProcess.launch(data.resolve("node"), settings, stockExporterJars())
            .awaitReady("/actuator/health/readiness");
        ZeebeClient client = node.client();
        SearchStore store = SearchStoreConnector.connect(StoreConnection.of(storeUrl))) {
      List<Long> instances = runWorkload(client, store);
      await("our exporter wrote every instance").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        store.refresh(ReadModelIndex.PROCESS_INSTANCE.indexName(OURS));
        assertThat(store.count(ReadModelIndex.PROCESS_INSTANCE.indexName(OURS))).isEqualTo(instances.size());
      });

      await("the import equals our exporter's read model").atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            assertThat(node.get("/actuator/health").body()).as("the node's health")
                .containsPattern("\"importer\":\\{\"status\":\"UP\",\"details\":\\{\"caughtUp\":true");
            for (ReadModelIndex entity : ReadModelIndex.fromRecords()) {
              List<Map<String, Object>> ours = documents(store, entity.indexName(OURS));
              if (!NO_MESSAGES_IN_THE_WORKLOAD.contains(entity)) {
                assertThat(ours).as("%s written by our exporter", entity).isNotEmpty();
              }
              assertThat(documents(store, entity.indexName(IMPORTED))).as("%s imported", entity).isEqualTo(ours);
            }
          });
      // the UI says so too, in a real browser: its header shows the importer's state from the node's health
      try (Playwright playwright = Playwright.create(); Browser browser = HeadlessChromium.launch(playwright)) {
        Page page = browser.newPage();
        page.navigate("http://127.0.0.1:" + node.httpPort() + "/");
        PlaywrightAssertions.assertThat(page.locator("#importer")).hasText("Import: caught up");
      }
      String deadLetters = ReadModelIndex.DEAD_LETTER.indexName(IMPORTED);
      store.refresh(deadLetters);
      assertThat(store.count(deadLetters)).as("dead letters of the import").isZero();
    }
  }

  /**
   * Instances of the two-task process (jobs failed once and completed by named workers, variables updated and a long
   * one truncated), an instance with an incident that is resolved, and one that is canceled. Returns the instances.
   */
  private static List<Long> runWorkload(ZeebeClient client, SearchStore store) {
    client.newDeployResourceCommand().addProcessModel(TwoTaskInstances.PROCESS, "two-tasks.bpmn")
        .addProcessModel(ReadModelFromRealRunsTest.FRAGILE, "fragile.bpmn")
        .addProcessModel(ReadModelFromRealRunsTest.WAITING, "waiting.bpmn").send().join();
    TwoTaskInstances twoTasks = new TwoTaskInstances("legacy", 300).create(client, 8);
    twoTasks.runTask(client, 1).runTask(client, 2);
    List<Long> instances = new ArrayList<>(twoTasks.instanceKeys());

    long fragile = client.newCreateInstanceCommand().bpmnProcessId("fragile").latestVersion().send().join()
        .getProcessInstanceKey();
    instances.add(fragile);
    ActivatedJob job = activate(client, "fragile");
    client.newFailCommand(job.getKey()).retries(0).errorMessage("boom").send().join();
    long incident = await("the incident in our read model").atMost(Duration.ofSeconds(30))
        .until(() -> incidentOf(store, fragile), key -> key > 0);
    client.newUpdateRetriesCommand(job.getKey()).retries(1).send().join();
    client.newResolveIncidentCommand(incident).send().join();
    client.newCompleteCommand(activate(client, "fragile").getKey()).send().join();

    long waiting = client.newCreateInstanceCommand().bpmnProcessId("waiting").latestVersion().send().join()
        .getProcessInstanceKey();
    instances.add(waiting);
    activate(client, "never");
    client.newCancelInstanceCommand(waiting).send().join();
    return instances;
  }

  /** The key of the instance's incident as our exporter wrote it (the client cannot search), or -1. */
  private static long incidentOf(SearchStore store, long instance) {
    String index = ReadModelIndex.INCIDENT.indexName(OURS);
    store.refresh(index);
    return store.findByField(index, "processInstanceKey", instance, 1).stream()
        .mapToLong(incident -> ((Number) incident.get("key")).longValue()).findFirst().orElse(-1);
  }

  /** Camunda's stock exporter and the jars it needs that the node lacks, unpacked by build-support. */
  private static List<Path> stockExporterJars() throws IOException {
    Path lib = Path.of(System.getProperty("flowpipe.stock-exporter.lib"));
    try (Stream<Path> jars = Files.list(lib)) {
      // the other jars there are the node's own (installed into the local repository from the distribution)
      return jars.filter(jar -> !jar.getFileName().toString().matches(
          "(zeebe-gateway-grpc|zeebe-cluster-config|identity-sdk)-.*")).sorted().toList();
    }
  }
}
