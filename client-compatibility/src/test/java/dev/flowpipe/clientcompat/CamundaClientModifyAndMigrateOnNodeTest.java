package dev.flowpipe.clientcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.camunda.client.CamundaClient;
import io.camunda.client.api.command.ProblemException;
import io.camunda.client.api.response.ActivatedJob;
import io.camunda.client.api.search.response.ElementInstance;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Single-instance modification and migration through Camunda's official Java client (camunda-client-java 8.8,
 * unchanged, over REST) against a real node with basic auth: the calls that were answered 403 before issue 35. The
 * effect is checked with the engine's own word (the jobs it then hands out over gRPC), the expectations come from the
 * models this test deploys. A node of its own, so that its runs change no other test's expectations.
 */
class CamundaClientModifyAndMigrateOnNodeTest {

  private static final String USER = "operator";
  private static final String PASSWORD = "operator-secret";

  private static final BpmnModelInstance TWO_STEPS = Bpmn.createExecutableProcess("cc-two-steps").startEvent()
      .serviceTask("first", t -> t.zeebeJobType("cc-first")).serviceTask("second", t -> t.zeebeJobType("cc-second"))
      .endEvent().done();

  private static final BpmnModelInstance VERSION_1 = Bpmn.createExecutableProcess("cc-migrating").startEvent("start")
      .serviceTask("a", t -> t.zeebeJobType("cc-a")).endEvent().done();

  private static final BpmnModelInstance VERSION_2 = Bpmn.createExecutableProcess("cc-migrating").startEvent("start")
      .serviceTask("a2", t -> t.zeebeJobType("cc-a")).serviceTask("only-in-v2", t -> t.zeebeJobType("cc-v2"))
      .endEvent().done();

  private static NodeInChildProcess node;
  private static CamundaClient client;
  private static long version1;
  private static long version2;

  @BeforeAll
  static void startANode() throws Exception {
    node = NodeInChildProcess.startWithWriter(Files.createTempDirectory("client-compatibility-modify"), USER,
        PASSWORD);
    client = node.client(USER, PASSWORD);
    version1 = client.newDeployResourceCommand().useGrpc().addProcessModel(TWO_STEPS, "cc-two-steps.bpmn")
        .addProcessModel(VERSION_1, "cc-migrating.bpmn").send().join().getProcesses().stream()
        .filter(p -> p.getBpmnProcessId().equals("cc-migrating")).findFirst().orElseThrow().getProcessDefinitionKey();
    version2 = client.newDeployResourceCommand().useGrpc().addProcessModel(VERSION_2, "cc-migrating.bpmn").send()
        .join().getProcesses().getFirst().getProcessDefinitionKey();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (node != null) {
      node.close();
    }
  }

  /** The element instance of {@code elementId} in the instance, once the read model has it. */
  private static long elementInstance(long instance, String elementId) {
    return await().atMost(Duration.ofSeconds(30)).until(() -> client.newElementInstanceSearchRequest()
        .filter(f -> f.processInstanceKey(instance).elementId(elementId)).send().join().items().stream()
        .map(ElementInstance::getElementInstanceKey).findFirst().orElse(null), key -> key != null);
  }

  /** The job of {@code type} the engine hands out for this instance. */
  private static ActivatedJob jobOf(String type, long instance) {
    return await().atMost(Duration.ofSeconds(30)).until(() -> client.newActivateJobsCommand().useGrpc().jobType(type)
        .maxJobsToActivate(10).timeout(Duration.ofSeconds(2)).send().join().getJobs().stream()
        .filter(job -> job.getProcessInstanceKey() == instance).findFirst().orElse(null), job -> job != null);
  }

  @Test
  void theClientsModificationMovesTheTokenPastAStep() {
    long instance = client.newCreateInstanceCommand().bpmnProcessId("cc-two-steps").latestVersion().send().join()
        .getProcessInstanceKey();
    long first = elementInstance(instance, "first");

    client.newModifyProcessInstanceCommand(instance).useRest().activateElement("second")
        .withVariables(Map.of("moved", true))
        .and().terminateElement(first).send().join();

    ActivatedJob second = jobOf("cc-second", instance);
    assertThat(second.getElementId()).isEqualTo("second");
    assertThat(second.getVariablesAsMap()).containsEntry("moved", true);
  }

  @Test
  void theClientsMigrationMovesTheInstanceToVersionTwo() {
    long instance = client.newCreateInstanceCommand().processDefinitionKey(version1).send().join()
        .getProcessInstanceKey();
    elementInstance(instance, "a");

    client.newMigrateProcessInstanceCommand(instance).useRest().migrationPlan(version2).addMappingInstruction("a", "a2")
        .send().join();

    ActivatedJob a = jobOf("cc-a", instance);
    assertThat(a.getElementId()).isEqualTo("a2");
    client.newCompleteCommand(a).useGrpc().send().join();
    assertThat(jobOf("cc-v2", instance).getProcessDefinitionKey()).isEqualTo(version2);
    await("the instance in version 2 in the read model").atMost(Duration.ofSeconds(30)).until(() -> client
        .newProcessInstanceGetRequest(instance).send().join().getProcessDefinitionVersion(), version -> version == 2);
  }

  @Test
  void theEnginesRefusalsReachTheClientAsProblemsWithCamundasStatuses() {
    long instance = client.newCreateInstanceCommand().processDefinitionKey(version1).send().join()
        .getProcessInstanceKey();
    elementInstance(instance, "a");

    // a mapping of an element version 1 does not have: a bad instruction
    assertThatThrownBy(() -> client.newMigrateProcessInstanceCommand(instance).useRest().migrationPlan(version2)
        .addMappingInstruction("not-in-v1", "a2").send().join())
        .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.code()).isEqualTo(400));
    // the active task left unmapped: refused as the instance stands
    assertThatThrownBy(() -> client.newMigrateProcessInstanceCommand(instance).useRest().migrationPlan(version2)
        .addMappingInstruction("start", "start").send().join())
        .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.code()).isEqualTo(409));
    assertThatThrownBy(() -> client.newModifyProcessInstanceCommand(2251799813685249L).useRest().activateElement("a")
        .send().join())
        .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.code()).isEqualTo(404));
    // still in version 1, at its task: the engine's word
    assertThat(jobOf("cc-a", instance).getProcessDefinitionKey()).isEqualTo(version1);
  }
}
