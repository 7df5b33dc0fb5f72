package dev.flowpipe.node.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.exporter.ReadModelExporter;
import dev.flowpipe.exporter.identity.LogIdentity;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.writer.config.WriterSettings;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.exporter.api.context.Configuration;
import io.camunda.zeebe.exporter.api.context.Context;
import io.camunda.zeebe.exporter.test.ExporterTestConfiguration;
import io.camunda.zeebe.exporter.test.ExporterTestContext;
import io.camunda.zeebe.exporter.test.ExporterTestController;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import io.camunda.zeebe.protocol.record.Record;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;

/**
 * Deleting finished instances (issue 35) on a real node: an instance that touched every entity of an instance (a
 * decision, a message subscription and its correlation, a job with an incident, variables, sequence flows) is
 * deleted over the web app's v2 API, and every document of it is gone while an instance of the same run that was not
 * deleted keeps its own; the searches no longer find it; the node's recorded log exported again from position 0 into
 * the same read model (an exporter whose position was wiped) does not bring it back, though the same stream exported
 * into an empty read model gives its documents. Each error status is made to happen, and a batch deletes the finished
 * instances of a filter and leaves the active one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeletionOnARealNodeTest {

  /** Records of earlier test classes of this JVM: this class's stream starts after them. */
  private static final int RECORDED_BEFORE = RecordingExporter.records().size();

  @RegisterExtension
  static final TwoTaskNode NODE = new TwoTaskNode(Map.of(
      "flowpipe.broker.additional-exporters.recorder.class-name", RecordingExporter.class.getName(),
      "flowpipe.webapp.operations.enabled", true));

  /** A decision, a message to wait for, then a task: an instance of it has documents in every instance entity. */
  private static final BpmnModelInstance EVERYTHING = Bpmn.createExecutableProcess("d-everything").startEvent()
      .businessRuleTask("choose", t -> t.zeebeCalledDecisionId("dish").zeebeResultVariable("meal"))
      .receiveTask("wait").message(m -> m.name("d-go").zeebeCorrelationKeyExpression("orderId"))
      .serviceTask("work", t -> t.zeebeJobType("d-work"))
      .endEvent().done();

  private static final BpmnModelInstance BATCHED = Bpmn.createExecutableProcess("d-batched").startEvent()
      .serviceTask("batched-work", t -> t.zeebeJobType("d-batched")).endEvent().done();

  /** The entities an instance of {@link #EVERYTHING} has documents in. */
  private static final Set<ReadModelIndex> OF_AN_INSTANCE = EnumSet.of(ReadModelIndex.PROCESS_INSTANCE,
      ReadModelIndex.FLOW_NODE_INSTANCE, ReadModelIndex.VARIABLE, ReadModelIndex.INCIDENT, ReadModelIndex.JOB,
      ReadModelIndex.SEQUENCE_FLOW, ReadModelIndex.MESSAGE_SUBSCRIPTION, ReadModelIndex.MESSAGE_CORRELATION,
      ReadModelIndex.DECISION_INSTANCE);

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private SearchStore store;
  private long deleted;
  private long kept;
  private long running;
  private Map<ReadModelIndex, Integer> documentsBeforeDeletion;
  private int deletion;

  @BeforeAll
  void runTwoInstancesToTheirEndAndDeleteOne() {
    store = NODE.node().store().client();
    try (ZeebeClient client = NODE.node().client()) {
      client.newDeployResourceCommand().addResourceFromClasspath("flowpipe/dmn/dish.dmn").send().join();
      client.newDeployResourceCommand().addProcessModel(EVERYTHING, "d-everything.bpmn")
          .addProcessModel(BATCHED, "d-batched.bpmn").send().join();
      deleted = runToTheEnd(client, "d-1");
      kept = runToTheEnd(client, "d-2");
      running = client.newCreateInstanceCommand().bpmnProcessId("d-everything").latestVersion()
          .variables(Map.of("orderId", "d-3", "temperature", 5, "guests", 4)).send().join().getProcessInstanceKey();
    }
    await("both finished instances in the read model").atMost(Duration.ofSeconds(30))
        .until(() -> "COMPLETED".equals(instanceState(deleted)) && "COMPLETED".equals(instanceState(kept)));
    documentsBeforeDeletion = documentCounts(deleted);
    deletion = post("/v2/process-instances/" + deleted + "/deletion", "{}").statusCode();
  }

  /** An instance through its decision, message, an incident on its job (resolved) and its job's completion. */
  private long runToTheEnd(ZeebeClient client, String orderId) {
    long instance = client.newCreateInstanceCommand().bpmnProcessId("d-everything").latestVersion()
        .variables(Map.of("orderId", orderId, "temperature", 5, "guests", 4)).send().join().getProcessInstanceKey();
    client.newPublishMessageCommand().messageName("d-go").correlationKey(orderId).send().join();
    ActivatedJob job = jobOf(client, instance);
    client.newFailCommand(job.getKey()).retries(0).errorMessage("broken for a moment").send().join();
    await("the incident in the read model").atMost(Duration.ofSeconds(30))
        .until(() -> documentsOf(ReadModelIndex.INCIDENT, instance).size() == 1);
    client.newUpdateRetriesCommand(job.getKey()).retries(1).send().join();
    long incident = ((Number) documentsOf(ReadModelIndex.INCIDENT, instance).getFirst().get("key")).longValue();
    client.newResolveIncidentCommand(incident).send().join();
    client.newCompleteCommand(jobOf(client, instance).getKey()).variables(Map.of("done", true)).send().join();
    return instance;
  }

  private static ActivatedJob jobOf(ZeebeClient client, long instance) {
    return await("a job of " + instance).atMost(Duration.ofSeconds(30)).until(() -> client.newActivateJobsCommand()
        .jobType("d-work").maxJobsToActivate(10).timeout(Duration.ofSeconds(1)).send().join().getJobs().stream()
        .filter(job -> job.getProcessInstanceKey() == instance).findFirst().orElse(null), job -> job != null);
  }

  // ---- the read model, read directly

  /** The instance's documents in this entity of the read model under {@code prefix} (its own document by key). */
  private List<Map<String, Object>> documentsOf(String prefix, ReadModelIndex index, long instance) {
    String name = index.indexName(prefix);
    store.refresh(name);
    return store.findByField(name, index == ReadModelIndex.PROCESS_INSTANCE ? "key" : "processInstanceKey", instance,
        1000);
  }

  private List<Map<String, Object>> documentsOf(ReadModelIndex index, long instance) {
    return documentsOf(NODE.prefix(), index, instance);
  }

  private Map<ReadModelIndex, Integer> documentCounts(String prefix, long instance) {
    Map<ReadModelIndex, Integer> counts = new HashMap<>();
    for (ReadModelIndex index : ReadModelIndex.entities()) {
      int count = documentsOf(prefix, index, instance).size();
      if (count > 0) {
        counts.put(index, count);
      }
    }
    return counts;
  }

  private Map<ReadModelIndex, Integer> documentCounts(long instance) {
    return documentCounts(NODE.prefix(), instance);
  }

  private String instanceState(long instance) {
    List<Map<String, Object>> found = documentsOf(ReadModelIndex.PROCESS_INSTANCE, instance);
    return found.isEmpty() ? null : (String) found.getFirst().get("state");
  }

  // ---- the web app

  private static HttpResponse<String> post(String path, String body) {
    return send(HttpRequest.newBuilder(URI.create(baseUrl() + path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private static HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(URI.create(baseUrl() + path)).GET());
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return HTTP.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String baseUrl() {
    return "http://127.0.0.1:" + NODE.node().httpPort();
  }

  private static JsonNode json(HttpResponse<String> answer) {
    try {
      return JSON.readTree(answer.body());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static long searchTotal(String entity, String filter) {
    HttpResponse<String> answer = post("/v2/" + entity + "/search", "{\"filter\": " + filter + "}");
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return json(answer).path("page").path("totalItems").asLong();
  }

  @Nested
  class ADeletedInstance {

    @Test
    void hadDocumentsInEveryEntityOfAnInstanceBeforeItsDeletion() {
      assertThat(documentsBeforeDeletion.keySet()).as("the oracle: the instance touched every entity")
          .containsAll(OF_AN_INSTANCE);
    }

    @Test
    void isAnsweredNoContentAndLeavesNoDocumentInAnyEntity() {
      assertThat(deletion).isEqualTo(204);
      assertThat(documentCounts(deleted)).isEmpty();
    }

    @Test
    void leavesTheFinishedInstanceOfTheSameRunThatWasNotDeleted() {
      assertThat(documentCounts(kept).keySet()).containsAll(OF_AN_INSTANCE);
    }

    @Test
    void isNoLongerFoundByTheSearchesOrByItsKey() {
      String byInstance = "{\"processInstanceKey\": \"" + deleted + "\"}";
      assertThat(searchTotal("process-instances", byInstance)).isZero();
      assertThat(searchTotal("element-instances", byInstance)).isZero();
      assertThat(searchTotal("variables", byInstance)).isZero();
      assertThat(searchTotal("jobs", byInstance)).isZero();
      assertThat(searchTotal("incidents", byInstance)).isZero();
      assertThat(get("/v2/process-instances/" + deleted).statusCode()).isEqualTo(404);
      assertThat(searchTotal("process-instances", "{\"processInstanceKey\": \"" + kept + "\"}")).isEqualTo(1);
    }

    @Test
    void staysDeletedWhenTheWholeLogIsExportedAgainFromPositionZero() {
      List<Record<?>> stream = stream();
      String clean = SharedOpenSearch.uniquePrefix();
      feed(stream, clean, null);
      assertThat(documentCounts(clean, deleted).keySet())
          .as("the oracle: the stream exported into an empty read model gives the instance's documents")
          .containsAll(OF_AN_INSTANCE);

      feed(stream, NODE.prefix(), logIdOfTheNode());

      assertThat(documentCounts(deleted)).isEmpty();
      assertThat(documentCounts(kept)).isEqualTo(documentCounts(clean, kept));
    }
  }

  @Nested
  class Refused {

    @Test
    void aRunningInstanceIs409AndKeepsItsDocuments() {
      await().atMost(Duration.ofSeconds(30)).until(() -> "ACTIVE".equals(instanceState(running)));

      HttpResponse<String> answer = post("/v2/process-instances/" + running + "/deletion", "{}");

      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(409);
      assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
          type -> assertThat(type).startsWith("application/problem+json"));
      assertThat(json(answer).path("detail").asText()).contains(String.valueOf(running));
      assertThat(documentsOf(ReadModelIndex.PROCESS_INSTANCE, running)).hasSize(1);
    }

    @Test
    void anInstanceDeletedBeforeIs404() {
      assertThat(post("/v2/process-instances/" + deleted + "/deletion", "{}").statusCode()).isEqualTo(404);
    }

    @Test
    void anUnknownKeyIs404() {
      assertThat(post("/v2/process-instances/2251799813685249/deletion", "").statusCode()).isEqualTo(404);
    }

    @Test
    void aKeyThatIsNoNumberIs400NamingIt() {
      HttpResponse<String> answer = post("/v2/process-instances/not-a-key/deletion", "{}");

      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
      assertThat(answer.body()).contains("not-a-key");
    }
  }

  @Nested
  class ABatchDeletion {

    @Test
    void deletesTheFinishedInstancesOfTheFilterAndLeavesTheActiveOne() {
      long completed;
      long canceled;
      long active;
      try (ZeebeClient client = NODE.node().client()) {
        completed = client.newCreateInstanceCommand().bpmnProcessId("d-batched").latestVersion().send().join()
            .getProcessInstanceKey();
        ActivatedJob job = await().atMost(Duration.ofSeconds(30)).until(() -> client.newActivateJobsCommand()
            .jobType("d-batched").maxJobsToActivate(1).send().join().getJobs().stream().findFirst().orElse(null),
            j -> j != null);
        client.newCompleteCommand(job.getKey()).send().join();
        canceled = client.newCreateInstanceCommand().bpmnProcessId("d-batched").latestVersion().send().join()
            .getProcessInstanceKey();
        client.newCancelInstanceCommand(canceled).send().join();
        active = client.newCreateInstanceCommand().bpmnProcessId("d-batched").latestVersion().send().join()
            .getProcessInstanceKey();
      }
      await("the three instances, two ended, in the read model").atMost(Duration.ofSeconds(30)).until(() ->
          "COMPLETED".equals(instanceState(completed)) && "CANCELED".equals(instanceState(canceled))
              && "ACTIVE".equals(instanceState(active)));

      HttpResponse<String> started = post("/v2/process-instances/deletion",
          "{\"filter\": {\"processDefinitionId\": \"d-batched\"}}");

      assertThat(started.statusCode()).as(started.body()).isEqualTo(200);
      assertThat(json(started).path("batchOperationType").asText()).isEqualTo("DELETE_PROCESS_INSTANCE");
      String batch = json(started).path("batchOperationKey").asText();
      JsonNode ended = await("the batch's end").atMost(Duration.ofSeconds(60)).until(
          () -> json(get("/v2/batch-operations/" + batch)), b -> !"ACTIVE".equals(b.path("state").asText()));
      assertThat(ended.path("state").asText()).isEqualTo("COMPLETED");
      assertThat(ended.path("operationsTotalCount").asInt()).isEqualTo(2);
      assertThat(documentCounts(completed)).isEmpty();
      assertThat(documentCounts(canceled)).isEmpty();
      assertThat(documentCounts(active)).containsKey(ReadModelIndex.PROCESS_INSTANCE);
    }
  }

  /** The records of this class's node, in log order. */
  private static List<Record<?>> stream() {
    List<Record<?>> all = RecordingExporter.records();
    return all.subList(RECORDED_BEFORE, all.size()).stream().filter(r -> r.getPartitionId() == 1).toList();
  }

  /** The exporter metadata the node's broker keeps: the id of its log, as the read model records it. */
  private byte[] logIdOfTheNode() {
    return LogIdentity.of(store.get(ReadModelIndex.LOG_IDENTITY.indexName(NODE.prefix()),
        ReadModelIndex.logIdentityId(1)).orElseThrow()).metadata();
  }

  /**
   * Exports the stream with a new exporter of partition 1 to which the broker hands no position (a wiped exporter
   * position: it starts from the log's beginning), with {@code metadata} (the log's id; none for an empty read model),
   * into the read model under {@code prefix}, then closes it.
   */
  private static void feed(List<Record<?>> stream, String prefix, byte[] metadata) {
    ExporterTestController controller = new ExporterTestController();
    if (metadata != null) {
      controller.updateLastExportedRecordPosition(-1, metadata);
    }
    Map<String, Object> args = new HashMap<>();
    args.put(WriterSettings.URL, NODE.node().store().connection().url().toString());
    args.put(WriterSettings.INDEX_PREFIX, prefix);
    args.put(WriterSettings.BULK_SIZE, 50);
    args.put(WriterSettings.BULK_DELAY, "1h");
    ReadModelExporter exporter = new ReadModelExporter();
    exporter.configure(new OfPartitionOne(new ExporterTestContext()
        .setConfiguration(new ExporterTestConfiguration<>("flowpipe", args, a -> a))));
    exporter.open(controller);
    for (Record<?> record : stream) {
      // a record the exporter refuses (its buffer full while it connects) is offered again, as the broker does
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).ignoreExceptions().until(() -> {
        exporter.export(record);
        return true;
      });
    }
    exporter.close();
    assertThat(controller.getPosition()).as("the exporter acknowledged the whole stream")
        .isEqualTo(stream.getLast().getPosition());
  }

  /** The test context as a broker opens the exporter of partition 1, the records' (the test context says 0). */
  private record OfPartitionOne(ExporterTestContext context) implements Context {
    @Override
    public MeterRegistry getMeterRegistry() {
      return context.getMeterRegistry();
    }

    @Override
    public Logger getLogger() {
      return context.getLogger();
    }

    @Override
    public InstantSource clock() {
      return context.clock();
    }

    @Override
    public Configuration getConfiguration() {
      return context.getConfiguration();
    }

    @Override
    public int getPartitionId() {
      return 1;
    }

    @Override
    public void setFilter(RecordFilter filter) {
      context.setFilter(filter);
    }
  }
}
