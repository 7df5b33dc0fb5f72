package dev.flowpipe.clientcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.camunda.client.CamundaClient;
import io.camunda.client.api.command.ProblemException;
import io.camunda.client.api.response.ActivatedJob;
import io.camunda.client.api.search.enums.BatchOperationItemState;
import io.camunda.client.api.search.enums.BatchOperationState;
import io.camunda.client.api.search.enums.BatchOperationType;
import io.camunda.client.api.search.response.BatchOperation;
import io.camunda.client.api.search.response.BatchOperationItems.BatchOperationItem;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Batch operations through Camunda's official Java client (camunda-client-java 8.8, unchanged, over REST) against a
 * real node with basic auth: batch migration and batch modification (answered 403 before issue 35), the batch and item
 * searches (405, and a plain string wanted where the client sends {@code {"$eq": ...}}), suspension, resumption and
 * cancellation (403). The effect is checked with the engine's word: the jobs it hands out over gRPC after the batch.
 * The node is shared with this module's other classes: the process ids and job types are this class's own.
 */
@ExtendWith(SharedNode.class)
class CamundaClientBatchesOnNodeTest {

  private static final int INSTANCES = 12;

  private static final BpmnModelInstance VERSION_1 = Bpmn.createExecutableProcess("cc-batch-migrating")
      .startEvent("start").serviceTask("a", t -> t.zeebeJobType("cc-batch-a")).endEvent().done();

  private static final BpmnModelInstance VERSION_2 = Bpmn.createExecutableProcess("cc-batch-migrating")
      .startEvent("start").serviceTask("a2", t -> t.zeebeJobType("cc-batch-a")).endEvent().done();

  private static final BpmnModelInstance TWO_STEPS = Bpmn.createExecutableProcess("cc-batch-moving").startEvent()
      .serviceTask("first", t -> t.zeebeJobType("cc-batch-first"))
      .serviceTask("second", t -> t.zeebeJobType("cc-batch-second")).endEvent().done();

  private static final BpmnModelInstance WAITING = Bpmn.createExecutableProcess("cc-batch-waiting").startEvent()
      .serviceTask("wait", t -> t.zeebeJobType("cc-batch-wait")).endEvent().done();

  private static final BpmnModelInstance CANCELLING = Bpmn.createExecutableProcess("cc-batch-cancelling")
      .startEvent().serviceTask("wait", t -> t.zeebeJobType("cc-batch-cancelling")).endEvent().done();

  private static CamundaClient client;
  private static long version1;
  private static long version2;

  @BeforeAll
  static void deployOnTheSharedNode(NodeInChildProcess node) {
    client = node.client(SharedNode.OPERATOR, SharedNode.OPERATOR_PASSWORD);
    version1 = client.newDeployResourceCommand().useGrpc().addProcessModel(VERSION_1, "cc-batch-migrating.bpmn")
        .addProcessModel(TWO_STEPS, "cc-batch-moving.bpmn").addProcessModel(WAITING, "cc-batch-waiting.bpmn")
        .addProcessModel(CANCELLING, "cc-batch-cancelling.bpmn")
        .send().join().getProcesses().stream().filter(p -> p.getBpmnProcessId().equals("cc-batch-migrating"))
        .findFirst().orElseThrow().getProcessDefinitionKey();
    version2 = client.newDeployResourceCommand().useGrpc().addProcessModel(VERSION_2, "cc-batch-migrating.bpmn")
        .send().join().getProcesses().getFirst().getProcessDefinitionKey();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  /** Starts instances of a process's latest version and waits until the read model shows each at its first task. */
  private static Set<Long> started(String processId, String firstTask, int count) {
    return started(processId, firstTask, count, () -> client.newCreateInstanceCommand().bpmnProcessId(processId)
        .latestVersion().send().join().getProcessInstanceKey());
  }

  private static Set<Long> started(String processId, String firstTask, int count, Supplier<Long> create) {
    Set<Long> keys = new HashSet<>();
    IntStream.range(0, count).forEach(i -> keys.add(create.get()));
    await().atMost(Duration.ofSeconds(60)).until(() -> client.newElementInstanceSearchRequest()
        .filter(f -> f.processDefinitionId(processId).elementId(firstTask)).page(p -> p.limit(1000)).send().join()
        .items().stream().filter(e -> keys.contains(e.getProcessInstanceKey())).count() == count);
    return keys;
  }

  /** Every job of {@code type} the engine hands out for these instances, by instance. */
  private static Map<Long, ActivatedJob> jobsOf(String type, Set<Long> instances) {
    Map<Long, ActivatedJob> jobs = new HashMap<>();
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      client.newActivateJobsCommand().useGrpc().jobType(type).maxJobsToActivate(100).timeout(Duration.ofMinutes(5))
          .send().join().getJobs().stream().filter(job -> instances.contains(job.getProcessInstanceKey()))
          .forEach(job -> jobs.put(job.getProcessInstanceKey(), job));
      return jobs.size() == instances.size();
    });
    return jobs;
  }

  private static BatchOperation ended(String key) {
    return await().atMost(Duration.ofSeconds(60)).until(() -> client.newBatchOperationGetRequest(key).send().join(),
        batch -> batch.getStatus() != BatchOperationState.ACTIVE);
  }

  private static List<BatchOperationItem> items(String key) {
    return client.newBatchOperationItemsSearchRequest().filter(f -> f.batchOperationKey(key))
        .page(p -> p.limit(1000)).send().join().items();
  }

  @Test
  void theClientsBatchMigrationMovesEveryMatchingInstanceToVersionTwo() {
    // version 1's instances (version 2 is the latest)
    Set<Long> instances = started("cc-batch-migrating", "a", INSTANCES, () -> client.newCreateInstanceCommand()
        .processDefinitionKey(version1).send().join().getProcessInstanceKey());

    String key = client.newCreateBatchOperationCommand().migrateProcessInstance()
        .targetProcessDefinitionKey(version2).addMappingInstruction("a", "a2")
        .filter(f -> f.processDefinitionKey(version1)).send().join().getBatchOperationKey();

    BatchOperation batch = ended(key);
    assertThat(batch.getStatus()).isEqualTo(BatchOperationState.COMPLETED);
    assertThat(batch.getType()).isEqualTo(BatchOperationType.MIGRATE_PROCESS_INSTANCE);
    assertThat(batch.getOperationsTotalCount()).isEqualTo(INSTANCES);
    assertThat(items(key)).extracting(BatchOperationItem::getProcessInstanceKey)
        .containsExactlyInAnyOrderElementsOf(instances);
    // the engine's word: each instance's task is now version 2's
    assertThat(jobsOf("cc-batch-a", instances).values()).allSatisfy(job -> {
      assertThat(job.getProcessDefinitionKey()).isEqualTo(version2);
      assertThat(job.getElementId()).isEqualTo("a2");
    });
  }

  @Test
  void theClientsBatchModificationMovesEveryMatchingInstancePastAStep() {
    Set<Long> instances = started("cc-batch-moving", "first", INSTANCES);

    String key = client.newCreateBatchOperationCommand().modifyProcessInstance()
        .addMoveInstruction("first", "second").filter(f -> f.processDefinitionId("cc-batch-moving")).send().join()
        .getBatchOperationKey();

    assertThat(ended(key).getStatus()).isEqualTo(BatchOperationState.COMPLETED);
    assertThat(items(key)).allSatisfy(item -> {
      assertThat(item.getStatus()).isEqualTo(BatchOperationItemState.COMPLETED);
      assertThat(item.getOperationType()).isEqualTo(BatchOperationType.MODIFY_PROCESS_INSTANCE);
    });
    assertThat(jobsOf("cc-batch-second", instances)).hasSize(INSTANCES);
    assertThat(client.newActivateJobsCommand().useGrpc().jobType("cc-batch-first").maxJobsToActivate(100).send()
        .join().getJobs()).noneMatch(job -> instances.contains(job.getProcessInstanceKey()));
  }

  @Test
  void theClientsBatchAndItemSearchesFindABatchByKeyTypeAndState() {
    String key = client.newCreateBatchOperationCommand().resolveIncident()
        .filter(f -> f.processDefinitionId("cc-batch-waiting")).send().join().getBatchOperationKey();
    ended(key);

    List<BatchOperation> found = client.newBatchOperationSearchRequest().filter(f -> f.batchOperationKey(key)
        .operationType(BatchOperationType.RESOLVE_INCIDENT).state(BatchOperationState.COMPLETED)).send().join()
        .items();
    assertThat(found).extracting(BatchOperation::getBatchOperationKey).containsExactly(key);
    assertThat(client.newBatchOperationSearchRequest().filter(f -> f.batchOperationKey(key)
        .state(BatchOperationState.SUSPENDED)).send().join().items()).isEmpty();
    // no instance of the process has an incident: the batch has no items
    assertThat(client.newBatchOperationItemsSearchRequest().filter(f -> f.batchOperationKey(key)).send().join()
        .items()).isEmpty();
  }

  @Test
  void theClientSuspendsResumesAndCancelsABatchAndGetsCamundasStatuses() {
    started("cc-batch-cancelling", "wait", 300);

    String key = client.newCreateBatchOperationCommand().processInstanceCancel()
        .filter(f -> f.processDefinitionId("cc-batch-cancelling")).send().join().getBatchOperationKey();
    client.newSuspendBatchOperationCommand(key).send().join();

    assertThat(client.newBatchOperationGetRequest(key).send().join().getStatus())
        .isEqualTo(BatchOperationState.SUSPENDED);
    assertThatThrownBy(() -> client.newSuspendBatchOperationCommand(key).send().join())
        .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.code()).isEqualTo(409));
    client.newResumeBatchOperationCommand(key).send().join();
    client.newCancelBatchOperationCommand(key).send().join();

    BatchOperation batch = client.newBatchOperationGetRequest(key).send().join();
    assertThat(batch.getStatus()).isEqualTo(BatchOperationState.CANCELED);
    await().atMost(Duration.ofSeconds(60)).until(() -> client.newBatchOperationItemsSearchRequest()
        .filter(f -> f.batchOperationKey(key).state(BatchOperationItemState.ACTIVE)).send().join().items().isEmpty());
    List<BatchOperationItem> items = items(key);
    assertThat(items).hasSize(300).extracting(BatchOperationItem::getStatus)
        .containsAnyOf(BatchOperationItemState.CANCELED).doesNotContain(BatchOperationItemState.ACTIVE);
    assertThatThrownBy(() -> client.newResumeBatchOperationCommand(key).send().join())
        .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.code()).isEqualTo(409));
    assertThatThrownBy(() -> client.newCancelBatchOperationCommand("123").send().join())
        .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.code()).isEqualTo(404));
  }
}
