package dev.flowpipe.node.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.writer.config.WriterSettings;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import io.camunda.zeebe.protocol.record.Record;
import io.camunda.zeebe.protocol.record.intent.ProcessInstanceIntent;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What any client does to an instance shows in the read model: an instance migrated from version 1 to version 2 with
 * Camunda's official client (gRPC {@code MigrateProcessInstance}), and a process definition deleted with it
 * ({@code DeleteResource}). The oracles are the client's own answers (the deployed keys, the jobs the engine hands out
 * with their element and definition) and the BPMN this test wrote; then the recorded stream of the node's log, replayed
 * from earlier positions, must give the documents of one clean pass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MigrationOnARealNodeTest {

  /** Records of earlier test classes of this JVM: this class's stream starts after them. */
  private static final int RECORDED_BEFORE = RecordingExporter.records().size();

  @RegisterExtension
  static final TwoTaskNode NODE =
      new TwoTaskNode(Map.of("flowpipe.broker.additional-exporters.recorder.class-name",
          RecordingExporter.class.getName()));

  private static final String PROCESS = "migrating";

  private static final BpmnModelInstance VERSION_1 = Bpmn.createExecutableProcess(PROCESS).name("Migrating")
      .startEvent("start")
      .serviceTask("a", t -> t.name("A").zeebeJobType("migrating-a"))
      .endEvent("end")
      .done();

  /** The task renamed ({@code a} is {@code a2} here) and a task after it that version 1 does not have. */
  private static final BpmnModelInstance VERSION_2 = Bpmn.createExecutableProcess(PROCESS).name("Migrating, v2")
      .startEvent("start")
      .serviceTask("a2", t -> t.name("A, second version").zeebeJobType("migrating-a"))
      .serviceTask("only-in-v2", t -> t.name("Only in v2").zeebeJobType("migrating-v2"))
      .endEvent("end")
      .done();

  private static final BpmnModelInstance DOOMED =
      Bpmn.createExecutableProcess("doomed").name("Doomed").startEvent().endEvent().done();

  private static final BpmnModelInstance BUSY = Bpmn.createExecutableProcess("busy").startEvent()
      .serviceTask("busy-task", t -> t.zeebeJobType("busy-never")).endEvent().done();

  /** The entities this run gives documents (it has no message events). */
  private static final Set<ReadModelIndex> WRITTEN_BY_THIS_RUN = EnumSet.of(
      ReadModelIndex.PROCESS_DEFINITION, ReadModelIndex.PROCESS_INSTANCE, ReadModelIndex.FLOW_NODE_INSTANCE,
      ReadModelIndex.VARIABLE, ReadModelIndex.INCIDENT, ReadModelIndex.JOB, ReadModelIndex.SEQUENCE_FLOW);

  private static final ObjectMapper JSON = new ObjectMapper();

  private SearchStore store;
  private long version1;
  private long version2;
  private long instance;
  private long taskInstance;
  private long job;
  private ActivatedJob reachedOnlyInV2;
  private long doomed;
  private long doomedInstance;
  private long busy;

  @BeforeAll
  void migrateAnInstanceAndDeleteADefinition() {
    store = NODE.node().store().client();
    try (ZeebeClient client = NODE.node().client()) {
      version1 = client.newDeployResourceCommand().addProcessModel(VERSION_1, "migrating.bpmn").send().join()
          .getProcesses().getFirst().getProcessDefinitionKey();
      version2 = client.newDeployResourceCommand().addProcessModel(VERSION_2, "migrating.bpmn").send().join()
          .getProcesses().getFirst().getProcessDefinitionKey();
      instance = client.newCreateInstanceCommand().processDefinitionKey(version1)
          .variables(Map.of("orderId", "o-1", "amount", 30)).send().join().getProcessInstanceKey();
      ActivatedJob first = activate(client, "migrating-a");
      job = first.getKey();
      taskInstance = first.getElementInstanceKey();
      client.newSetVariablesCommand(taskInstance).variables(Map.of("local", "in-a")).local(true).send().join();
      client.newFailCommand(job).retries(0).errorMessage("broken in v1").send().join();
      // the version-1 documents are written (so the migration changes stored documents, not buffered ones)
      await("the incident in the read model").atMost(Duration.ofSeconds(30))
          .until(() -> documents(ReadModelIndex.INCIDENT).size(), n -> n == 1);

      client.newMigrateProcessInstanceCommand(instance).migrationPlan(version2).addMappingInstruction("a", "a2")
          .send().join();

      client.newUpdateRetriesCommand(job).retries(1).send().join();
      long incident = ((Number) documents(ReadModelIndex.INCIDENT).getFirst().get("key")).longValue();
      client.newResolveIncidentCommand(incident).send().join();
      client.newCompleteCommand(activate(client, "migrating-a").getKey()).send().join();
      // the engine's own word that the instance runs on in version 2: a job of the element only version 2 has
      reachedOnlyInV2 = activate(client, "migrating-v2");

      doomed = client.newDeployResourceCommand().addProcessModel(DOOMED, "doomed.bpmn").send().join()
          .getProcesses().getFirst().getProcessDefinitionKey();
      doomedInstance = client.newCreateInstanceCommand().processDefinitionKey(doomed).withResult().send().join()
          .getProcessInstanceKey();
      client.newDeleteResourceCommand(doomed).send().join();

      busy = client.newDeployResourceCommand().addProcessModel(BUSY, "busy.bpmn").send().join()
          .getProcesses().getFirst().getProcessDefinitionKey();
      client.newCreateInstanceCommand().processDefinitionKey(busy).send().join();
      // Zeebe 8.6 deletes no definition with running instances
      assertThatThrownBy(() -> client.newDeleteResourceCommand(busy).send().join())
          .hasMessageContaining("running instances");
    }
    await("the element only version 2 has, and the deletion, in the read model").atMost(Duration.ofSeconds(30))
        .until(() -> elementsOf("only-in-v2").size() == 1 && Boolean.TRUE.equals(document(
            ReadModelIndex.PROCESS_DEFINITION, doomed).get("deleted")));
  }

  private static ActivatedJob activate(ZeebeClient client, String type) {
    List<ActivatedJob> jobs = new ArrayList<>();
    await("a " + type + " job").atMost(Duration.ofSeconds(30)).until(() -> {
      jobs.addAll(client.newActivateJobsCommand().jobType(type).maxJobsToActivate(1).workerName("tester")
          .send().join().getJobs());
      return !jobs.isEmpty();
    });
    return jobs.getFirst();
  }

  private Map<String, Object> document(ReadModelIndex index, long key) {
    return store.get(index.indexName(NODE.prefix()), String.valueOf(key)).orElse(Map.of());
  }

  /** The documents of the migrated instance in this entity. */
  private List<Map<String, Object>> documents(ReadModelIndex index) {
    String name = index.indexName(NODE.prefix());
    store.refresh(name);
    return store.findByField(name, "processInstanceKey", instance, 100);
  }

  private List<Map<String, Object>> elementsOf(String elementId) {
    return documents(ReadModelIndex.FLOW_NODE_INSTANCE).stream().filter(e -> elementId.equals(e.get("elementId")))
        .toList();
  }

  private static long key(Map<String, Object> document, String field) {
    return ((Number) document.get(field)).longValue();
  }

  // ---- A migrated instance

  @Test
  void aMigratedInstanceRunsInVersionTwoAsTheEngineSays() {
    assertThat(reachedOnlyInV2.getProcessInstanceKey()).isEqualTo(instance);
    assertThat(reachedOnlyInV2.getProcessDefinitionKey()).isEqualTo(version2);
    assertThat(reachedOnlyInV2.getProcessDefinitionVersion()).isEqualTo(2);

    assertThat(document(ReadModelIndex.PROCESS_INSTANCE, instance))
        .containsEntry("bpmnProcessId", PROCESS)
        .containsEntry("version", 2)
        .containsEntry("state", "ACTIVE")
        // named after version 2, no longer after the definition it started in
        .containsEntry("processDefinitionName", "Migrating, v2");
    assertThat(key(document(ReadModelIndex.PROCESS_INSTANCE, instance), "processDefinitionKey")).isEqualTo(version2);
  }

  @Test
  void aMigratedInstanceHasItsElementUnderTheTargetElementAndReachedTheOneOnlyVersionTwoHas() {
    assertThat(elementsOf("a")).as("no element instance left on version 1's task").isEmpty();
    assertThat(elementsOf("a2")).singleElement().satisfies(task -> {
      assertThat(key(task, "key")).as("the same element instance, migrated").isEqualTo(taskInstance);
      assertThat(key(task, "processDefinitionKey")).isEqualTo(version2);
      assertThat(task).containsEntry("elementName", "A, second version").containsEntry("state", "COMPLETED");
    });
    assertThat(elementsOf("only-in-v2")).singleElement().satisfies(next -> {
      assertThat(key(next, "key")).isEqualTo(reachedOnlyInV2.getElementInstanceKey());
      assertThat(key(next, "processDefinitionKey")).isEqualTo(version2);
      assertThat(next).containsEntry("elementName", "Only in v2").containsEntry("state", "ACTIVE");
    });
    // the start event had ended before the migration: the engine leaves it as it was, and so does the read model
    assertThat(elementsOf("start")).singleElement()
        .satisfies(start -> assertThat(key(start, "processDefinitionKey")).isEqualTo(version1));
  }

  @Test
  void aMigratedInstanceHasItsJobOnTheTargetElement() {
    Map<String, Object> migrated = document(ReadModelIndex.JOB, job);
    assertThat(migrated).containsEntry("elementId", "a2").containsEntry("state", "COMPLETED")
        .containsEntry("bpmnProcessId", PROCESS);
    assertThat(key(migrated, "processDefinitionKey")).isEqualTo(version2);
    assertThat(key(document(ReadModelIndex.JOB, reachedOnlyInV2.getKey()), "processDefinitionKey"))
        .isEqualTo(version2);
  }

  @Test
  void aMigratedInstanceHasItsIncidentOnTheTargetElement() {
    assertThat(documents(ReadModelIndex.INCIDENT)).singleElement().satisfies(incident -> {
      assertThat(incident).containsEntry("elementId", "a2").containsEntry("state", "RESOLVED")
          .containsEntry("errorMessage", "broken in v1");
      assertThat(key(incident, "processDefinitionKey")).isEqualTo(version2);
      assertThat(key(incident, "elementInstanceKey")).isEqualTo(taskInstance);
    });
    assertThat(document(ReadModelIndex.PROCESS_INSTANCE, instance)).containsEntry("incident", false);
  }

  @Test
  void aMigratedInstanceKeepsItsVariablesValuesUnderTheTargetDefinition() {
    Map<String, Map<String, Object>> byName = new HashMap<>();
    documents(ReadModelIndex.VARIABLE).forEach(v -> byName.put((String) v.get("name"), v));
    // the engine's MIGRATED variable records carry no value: the values are the ones the client set
    assertThat(byName).containsOnlyKeys("orderId", "amount", "local");
    assertThat(byName.get("orderId")).containsEntry("value", "\"o-1\"");
    assertThat(byName.get("amount")).containsEntry("value", "30");
    assertThat(byName.get("local")).containsEntry("value", "\"in-a\"");
    assertThat(key(byName.get("local"), "scopeKey")).isEqualTo(taskInstance);
    assertThat(byName.values()).allSatisfy(variable -> {
      assertThat(key(variable, "processDefinitionKey")).isEqualTo(version2);
      assertThat(variable).containsEntry("bpmnProcessId", PROCESS);
    });
  }

  // ---- A deleted definition

  @Test
  void aDeletedDefinitionIsMarkedDeletedAndLeftOutOfTheApi() throws Exception {
    assertThat(document(ReadModelIndex.PROCESS_DEFINITION, doomed)).containsEntry("deleted", true);

    JsonNode found = search("process-definitions", "{\"filter\": {\"processDefinitionId\": \"doomed\"}}");
    assertThat(found.path("items")).isEmpty();
    assertThat(found.path("page").path("totalItems").asLong()).isZero();
    assertThat(get("/v2/process-definitions/" + doomed).statusCode()).isEqualTo(404);
  }

  @Test
  void aDeletedDefinitionKeepsItsFinishedInstancesWithItsNameAsCamundaDoes() throws Exception {
    JsonNode found = search("process-instances", "{\"filter\": {\"processDefinitionKey\": \"" + doomed + "\"}}");
    assertThat(found.path("items")).singleElement().satisfies(item -> {
      assertThat(item.path("processInstanceKey").asText()).isEqualTo(String.valueOf(doomedInstance));
      assertThat(item.path("state").asText()).isEqualTo("COMPLETED");
      assertThat(item.path("processDefinitionName").asText()).isEqualTo("Doomed");
    });
    // the instance's diagram stays readable
    assertThat(get("/v2/process-definitions/" + doomed + "/xml").statusCode()).isEqualTo(200);
  }

  @Test
  void aDefinitionTheEngineRefusedToDeleteStaysFound() throws Exception {
    assertThat(document(ReadModelIndex.PROCESS_DEFINITION, busy)).doesNotContainKey("deleted");
    JsonNode found = search("process-definitions", "{\"filter\": {\"processDefinitionId\": \"busy\"}}");
    assertThat(found.path("items")).singleElement()
        .satisfies(item -> assertThat(item.path("processDefinitionKey").asText()).isEqualTo(String.valueOf(busy)));
  }

  private JsonNode search(String entity, String body) throws Exception {
    HttpResponse<String> answer = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(baseUrl() + "/v2/" + entity + "/search"))
            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return JSON.readTree(answer.body());
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(baseUrl() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private String baseUrl() {
    return "http://127.0.0.1:" + NODE.node().httpPort();
  }

  /**
   * The node's recorded log fed to our exporter again, under prefixes of its own: once from the start (a clean pass),
   * and with a crash somewhere in the stream and a replay from an earlier position. Both must equal what the node's
   * own exporter wrote while the migration and the deletion happened.
   */
  // ---- A replay

  @Test
  void aReplayOfTheWholeLogGivesWhatTheNodeWrote() {
    String clean = feed(stream(), 0, stream().size(), null, 1000).prefix();
    assertSameDocuments(clean, NODE.prefix());
  }

  @ParameterizedTest(name = "seed {0}, memory of written documents {1}")
  @CsvSource({"1, 10000", "7, 0", "35, 10000", "2026, 0"})
  void aReplayFromAnEarlierPositionAfterACrashGivesWhatTheNodeWrote(long seed, int recentDocuments) {
    List<Record<?>> stream = stream();
    Random random = new Random(seed);
    int migration = firstIndexOf(stream, ProcessInstanceIntent.ELEMENT_MIGRATED);
    // the crash falls anywhere, the migration often in the replayed stretch
    int crash = 1 + random.nextInt(stream.size() - 1);
    Fed beforeCrash = feed(stream, 0, crash, null, recentDocuments);
    int resume = random.nextInt(Math.min(crash, migration + 1));
    Fed afterCrash = feed(stream, resume, stream.size(), beforeCrash, recentDocuments);
    assertSameDocuments(afterCrash.prefix(), NODE.prefix());
  }

  /** The records of this class's node, in log order. */
  private List<Record<?>> stream() {
    List<Record<?>> all = RecordingExporter.records();
    List<Record<?>> stream = all.subList(RECORDED_BEFORE, all.size());
    assertThat(stream).as("a single partition").allSatisfy(r -> assertThat(r.getPartitionId()).isEqualTo(1));
    return stream;
  }

  private static int firstIndexOf(List<Record<?>> stream, ProcessInstanceIntent intent) {
    for (int i = 0; i < stream.size(); i++) {
      if (stream.get(i).getIntent() == intent) {
        return i;
      }
    }
    throw new AssertionError("no " + intent + " record in the stream");
  }

  private void assertSameDocuments(String prefix, String expectedPrefix) {
    for (ReadModelIndex index : ReadModelIndex.entities()) {
      var expected = ReadModelFromRealRunsTest.documents(store, index.indexName(expectedPrefix));
      if (WRITTEN_BY_THIS_RUN.contains(index)) {
        assertThat(expected).as(index + " written by the node").isNotEmpty();
      }
      assertThat(ReadModelFromRealRunsTest.documents(store, index.indexName(prefix))).as(index.name())
          .isEqualTo(expected);
    }
  }

  /** An exporter fed by hand, as the broker would, and what the broker kept of it when it closed. */
  private record Fed(String prefix, ExporterTestController controller) {}

  /**
   * Feeds {@code stream[from, to)} to a new exporter, then closes it (a clean close writes what it holds). With
   * {@code before}, the exporter carries on from that one's acknowledged position and metadata, under its prefix, as a
   * broker restarted after a crash; else it writes under a new prefix.
   */
  private Fed feed(List<Record<?>> stream, int from, int to, Fed before, int recentDocuments) {
    ExporterTestController controller = new ExporterTestController();
    String prefix = before != null ? before.prefix() : SharedOpenSearch.uniquePrefix();
    if (before != null) {
      before.controller().readMetadata().ifPresent(
          metadata -> controller.updateLastExportedRecordPosition(before.controller().getPosition(), metadata));
    }
    Map<String, Object> args = new HashMap<>();
    args.put(WriterSettings.URL, NODE.node().store().connection().url().toString());
    args.put(WriterSettings.INDEX_PREFIX, prefix);
    args.put(WriterSettings.BULK_SIZE, 7);
    args.put(WriterSettings.BULK_DELAY, "1h");
    args.put(WriterSettings.RECENT_DOCUMENTS, recentDocuments);
    ReadModelExporter exporter = new ReadModelExporter();
    exporter.configure(new ExporterTestContext()
        .setConfiguration(new ExporterTestConfiguration<>("flowpipe", args, a -> a)));
    exporter.open(controller);
    for (Record<?> record : stream.subList(from, to)) {
      // a record the exporter refuses (its buffer full while it connects) is offered again, as the broker does
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).ignoreExceptions().until(() -> {
        exporter.export(record);
        return true;
      });
    }
    exporter.close();
    return new Fed(prefix, controller);
  }
}
