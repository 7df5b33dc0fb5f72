package dev.flowpipe.node.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.node.webapp.Http.Answer;
import dev.flowpipe.node.webapp.SharedWebappNode.Runs;
import dev.flowpipe.webapp.operations.OperationsController;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Single-instance modification and migration over the v2 API of the shared node (operations on, authentication off),
 * against its real engine: the engine's own word on the effect (the jobs it hands the official client), the read model
 * at the position the answer names (read-your-writes), and each error status as the engine's refusals give it. Each
 * test works on instances of its own processes.
 */
@ExtendWith(SharedWebappNode.class)
@ResourceLock(SharedWebappNode.LOCK)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ModificationAndMigrationOnNodeTest {

  private static final String UNKNOWN_KEY = "2251799813685249";

  private static final BpmnModelInstance TWO_STEPS = Bpmn.createExecutableProcess("mm-two-steps").startEvent("start")
      .serviceTask("first", t -> t.zeebeJobType("mm-first"))
      .serviceTask("second", t -> t.zeebeJobType("mm-second"))
      .endEvent("end").done();

  private static final BpmnModelInstance VERSION_1 = Bpmn.createExecutableProcess("mm-migrating").startEvent("start")
      .serviceTask("a", t -> t.zeebeJobType("mm-a")).endEvent("end").done();

  private static final BpmnModelInstance VERSION_2 = Bpmn.createExecutableProcess("mm-migrating").startEvent("start")
      .serviceTask("a2", t -> t.zeebeJobType("mm-a"))
      .serviceTask("only-in-v2", t -> t.zeebeJobType("mm-only-in-v2"))
      .endEvent("end").done();

  private Runs runs;
  private long version2;

  @BeforeAll
  void deploy(Runs runs) {
    this.runs = runs;
    try (ZeebeClient client = runs.node().client()) {
      client.newDeployResourceCommand().addProcessModel(TWO_STEPS, "mm-two-steps.bpmn")
          .addProcessModel(VERSION_1, "mm-migrating.bpmn").send().join();
      version2 = client.newDeployResourceCommand().addProcessModel(VERSION_2, "mm-migrating.bpmn").send().join()
          .getProcesses().getFirst().getProcessDefinitionKey();
    }
  }

  private String url(String path) {
    return runs.baseUrl() + path;
  }

  /** A new instance of version 1 of the process, by id and version; its key. */
  private String create(String processId) {
    Answer created = Http.post(url("/v2/process-instances"),
        "{\"processDefinitionId\": \"" + processId + "\", \"processDefinitionVersion\": 1}");
    assertThat(created.status()).as(created.raw().body()).isEqualTo(200);
    return created.json().path("processInstanceKey").asText();
  }

  /** The instance's element instances of {@code elementId}, as soon as the read model holds one. */
  private JsonNode elementInstance(String instance, String elementId) {
    return await().atMost(Duration.ofSeconds(30)).until(() -> Http.post(url("/v2/element-instances/search"),
        "{\"filter\": {\"processInstanceKey\": \"" + instance + "\", \"elementId\": \"" + elementId + "\"}}")
        .json().path("items").path(0), item -> !item.isMissingNode());
  }

  /** A search waiting for the operation's position, as a client that read the answer's header would ask. */
  private JsonNode searchAfter(Answer operation, String entity, String filter) {
    String written = operation.header(OperationsController.POSITION_HEADER);
    assertThat(written).as("the operation's answer names the position its effect is written at").isNotNull();
    String[] partitionAndPosition = written.split(":");
    Answer answer = Http.post(url("/v2/" + entity + "/search"), "{\"filter\": " + filter
        + ", \"consistency\": {\"positions\": [{\"partitionId\": " + partitionAndPosition[0] + ", \"position\": "
        + partitionAndPosition[1] + "}], \"timeout\": \"10s\"}}");
    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
    return answer.json().path("items");
  }

  /** The job of {@code type} the engine hands out for this instance (it may take a moment to be there). */
  private ActivatedJob jobOf(ZeebeClient client, String type, String instance) {
    return await().atMost(Duration.ofSeconds(30)).until(() -> client.newActivateJobsCommand().jobType(type)
        .maxJobsToActivate(10).timeout(Duration.ofSeconds(2)).send().join().getJobs().stream()
        .filter(job -> job.getProcessInstanceKey() == Long.parseLong(instance)).findFirst().orElse(null),
        job -> job != null);
  }

  @Nested
  class AModification {

    @Test
    void movesTheTokenPastAStepAndTheNextReadShowsIt() {
      String instance = create("mm-two-steps");
      String first = elementInstance(instance, "first").path("elementInstanceKey").asText();

      Answer modified = Http.post(url("/v2/process-instances/" + instance + "/modification"),
          "{\"activateInstructions\": [{\"elementId\": \"second\", \"ancestorElementInstanceKey\": \"-1\","
              + " \"variableInstructions\": [{\"variables\": {\"skipped\": true}}]}],"
              + " \"terminateInstructions\": [{\"elementInstanceKey\": \"" + first + "\"}]}");

      assertThat(modified.status()).as(modified.raw().body()).isEqualTo(204);
      try (ZeebeClient client = runs.node().client()) {
        ActivatedJob second = jobOf(client, "mm-second", instance);
        assertThat(second.getElementId()).isEqualTo("second");
        assertThat(second.getVariablesAsMap()).containsEntry("skipped", true);
      }
      JsonNode elements = searchAfter(modified, "element-instances", "{\"processInstanceKey\": \"" + instance + "\"}");
      assertThat(elements).anySatisfy(e -> {
        assertThat(e.path("elementId").asText()).isEqualTo("first");
        assertThat(e.path("state").asText()).isEqualTo("TERMINATED");
      });
      assertThat(elements).anySatisfy(e -> {
        assertThat(e.path("elementId").asText()).isEqualTo("second");
        assertThat(e.path("state").asText()).isEqualTo("ACTIVE");
      });
    }

    @Test
    void ofAnElementTheProcessDoesNotHaveIsABadInstruction400() {
      String instance = create("mm-two-steps");

      Answer refused = Http.post(url("/v2/process-instances/" + instance + "/modification"),
          "{\"activateInstructions\": [{\"elementId\": \"no-such-element\"}]}");

      assertThat(refused.status()).as(refused.raw().body()).isEqualTo(400);
      assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
      assertThat(refused.json().path("detail").asText()).contains("no-such-element");
    }

    @Test
    void ofAnUnknownInstanceIs404() {
      Answer unknown = Http.post(url("/v2/process-instances/" + UNKNOWN_KEY + "/modification"),
          "{\"activateInstructions\": [{\"elementId\": \"second\"}]}");

      assertThat(unknown.status()).as(unknown.raw().body()).isEqualTo(404);
    }
  }

  /** Asks to migrate the instance to {@code target}, mapping {@code source} to {@code targetElement}. */
  private Answer migrate(String instance, Object target, String source, String targetElement) {
    return Http.post(url("/v2/process-instances/" + instance + "/migration"), "{\"targetProcessDefinitionKey\": \""
        + target + "\", \"mappingInstructions\": [{\"sourceElementId\": \"" + source + "\", \"targetElementId\": \""
        + targetElement + "\"}]}");
  }

  @Nested
  class AMigration {

    @Test
    void movesTheInstanceToVersionTwoWhereItReachesAnElementOnlyVersionTwoHas() {
      String instance = create("mm-migrating");
      elementInstance(instance, "a");

      Answer migrated = migrate(instance, version2, "a", "a2");

      assertThat(migrated.status()).as(migrated.raw().body()).isEqualTo(204);
      JsonNode instances = searchAfter(migrated, "process-instances", "{\"processInstanceKey\": \"" + instance + "\"}");
      assertThat(instances).singleElement().satisfies(i -> {
        assertThat(i.path("processDefinitionKey").asText()).isEqualTo(String.valueOf(version2));
        assertThat(i.path("processDefinitionVersion").asInt()).isEqualTo(2);
      });
      try (ZeebeClient client = runs.node().client()) {
        ActivatedJob a = jobOf(client, "mm-a", instance);
        assertThat(a.getElementId()).isEqualTo("a2");
        client.newCompleteCommand(a).send().join();
        ActivatedJob next = jobOf(client, "mm-only-in-v2", instance);
        assertThat(next.getProcessDefinitionKey()).isEqualTo(version2);
      }
    }

    @Test
    void thatLeavesAnActiveElementUnmappedIsRefusedAsItStands409() {
      String instance = create("mm-migrating");
      elementInstance(instance, "a");

      Answer refused = migrate(instance, version2, "start", "start");

      assertThat(refused.status()).as(refused.raw().body()).isEqualTo(409);
      assertThat(refused.json().path("detail").asText()).contains("'a'");
    }

    @Test
    void withAMappingOfAnElementTheSourceDoesNotHaveIsABadInstruction400() {
      String instance = create("mm-migrating");

      Answer refused = migrate(instance, version2, "not-in-v1", "a2");

      assertThat(refused.status()).as(refused.raw().body()).isEqualTo(400);
      assertThat(refused.json().path("detail").asText()).contains("not-in-v1");
    }

    @Test
    void ofAnUnknownInstanceOrToAnUnknownDefinitionIs404() {
      String instance = create("mm-migrating");
      List<Answer> answers =
          List.of(migrate(UNKNOWN_KEY, version2, "a", "a2"), migrate(instance, UNKNOWN_KEY, "a", "a2"));

      for (Answer answer : answers) {
        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(404);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
      }
    }
  }
}
