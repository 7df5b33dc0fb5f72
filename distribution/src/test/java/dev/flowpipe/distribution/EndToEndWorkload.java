package dev.flowpipe.distribution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.worker.JobWorker;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The workload every shipped form of the exporter must serve, through a broker's gateway with the official client: a
 * process with one service task is deployed; one instance is completed by a job worker, one's job fails without
 * retries (an incident), one is canceled. What the client was told (keys, and what it asked for) is the oracle that
 * {@link #assertReadModel} compares the store's read model with.
 */
final class EndToEndWorkload {

  static final String PROCESS_ID = "ship-order";
  static final String FAILURE = "no carrier for this address";

  private static final BpmnModelInstance PROCESS =
      Bpmn.createExecutableProcess(PROCESS_ID)
          .name("Ship order")
          .startEvent("received")
          .serviceTask("ship", task -> task.zeebeJobType("ship"))
          .endEvent("shipped")
          .done();

  /** The keys the broker answered with. */
  record Outcome(long definitionKey, long completed, long failed, long canceled) {}

  private EndToEndWorkload() {}

  static Outcome run(ZeebeClient client) {
    long definitionKey =
        client.newDeployResourceCommand().addProcessModel(PROCESS, PROCESS_ID + ".bpmn").send().join()
            .getProcesses().getFirst().getProcessDefinitionKey();
    long canceled = create(client, "cancel");
    client.newCancelInstanceCommand(canceled).send().join(); // before a worker can take its job
    long completed = create(client, "complete");
    long failed = create(client, "fail");

    Set<Long> handled = ConcurrentHashMap.newKeySet();
    try (JobWorker worker =
        client.newWorker().jobType("ship")
            .handler(
                (jobs, job) -> {
                  if ("fail".equals(job.getVariablesAsMap().get("outcome"))) {
                    jobs.newFailCommand(job.getKey()).retries(0).errorMessage(FAILURE).send().join();
                  } else {
                    jobs.newCompleteCommand(job.getKey()).variables(Map.of("shipped", true)).send().join();
                  }
                  handled.add(job.getProcessInstanceKey());
                })
            .pollInterval(Duration.ofMillis(50))
            .open()) {
      await("the worker handled both jobs").atMost(Duration.ofSeconds(30))
          .until(() -> handled.containsAll(List.of(completed, failed)));
    }
    return new Outcome(definitionKey, completed, failed, canceled);
  }

  private static long create(ZeebeClient client, String outcome) {
    return client.newCreateInstanceCommand().bpmnProcessId(PROCESS_ID).latestVersion()
        .variables(Map.of("outcome", outcome)).send().join().getProcessInstanceKey();
  }

  /** Waits (up to 60 s) until the read model under {@code prefix} shows exactly what the client saw. */
  static void assertReadModel(SearchStore store, String prefix, Outcome outcome) {
    await("the read model shows the workload").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
        .ignoreExceptions() // the indices may not exist yet
        .untilAsserted(() -> {
          assertThat(document(store, ReadModelIndex.PROCESS_DEFINITION, prefix, outcome.definitionKey()))
              .containsEntry("bpmnProcessId", PROCESS_ID)
              .containsEntry("name", "Ship order")
              .containsEntry("resourceName", PROCESS_ID + ".bpmn");

          assertThat(document(store, ReadModelIndex.PROCESS_INSTANCE, prefix, outcome.completed()))
              .containsEntry("state", "COMPLETED").containsEntry("incident", false)
              .containsEntry("processDefinitionKey", outcome.definitionKey());
          assertThat(document(store, ReadModelIndex.PROCESS_INSTANCE, prefix, outcome.failed()))
              .containsEntry("state", "ACTIVE").containsEntry("incident", true);
          assertThat(document(store, ReadModelIndex.PROCESS_INSTANCE, prefix, outcome.canceled()))
              .containsEntry("state", "CANCELED");

          assertThat(ofInstance(store, ReadModelIndex.INCIDENT, prefix, outcome.failed())).singleElement()
              .satisfies(incident -> assertThat(incident)
                  .containsEntry("state", "ACTIVE")
                  .containsEntry("errorType", "JOB_NO_RETRIES")
                  .containsEntry("errorMessage", FAILURE)
                  .containsEntry("elementId", "ship"));
          assertThat(ofInstance(store, ReadModelIndex.INCIDENT, prefix, outcome.completed())).isEmpty();

          assertThat(ofInstance(store, ReadModelIndex.JOB, prefix, outcome.completed())).singleElement()
              .satisfies(job -> assertThat(job).containsEntry("state", "COMPLETED").containsEntry("type", "ship"));
          assertThat(ofInstance(store, ReadModelIndex.JOB, prefix, outcome.failed())).singleElement()
              .satisfies(job -> assertThat(job).containsEntry("state", "FAILED").containsEntry("retries", 0));
          assertThat(ofInstance(store, ReadModelIndex.JOB, prefix, outcome.canceled())).singleElement()
              .satisfies(job -> assertThat(job).containsEntry("state", "CANCELED"));

          assertThat(ofInstance(store, ReadModelIndex.VARIABLE, prefix, outcome.completed()))
              .extracting(variable -> variable.get("name") + "=" + variable.get("value"))
              .containsExactlyInAnyOrder("outcome=\"complete\"", "shipped=true");
          assertThat(ofInstance(store, ReadModelIndex.FLOW_NODE_INSTANCE, prefix, outcome.completed()))
              .extracting(element -> element.get("elementId") + ":" + element.get("state"))
              .containsExactlyInAnyOrder("received:COMPLETED", "ship:COMPLETED", "shipped:COMPLETED");
          assertThat(ofInstance(store, ReadModelIndex.FLOW_NODE_INSTANCE, prefix, outcome.canceled()))
              .extracting(element -> element.get("elementId") + ":" + element.get("state"))
              .containsExactlyInAnyOrder("received:COMPLETED", "ship:TERMINATED");
        });
  }

  private static Map<String, Object> document(SearchStore store, ReadModelIndex index, String prefix, long key) {
    return store.get(index.indexName(prefix), String.valueOf(key))
        .orElseThrow(() -> new AssertionError("no " + index.entity() + " " + key));
  }

  private static List<Map<String, Object>> ofInstance(SearchStore store, ReadModelIndex index, String prefix,
      long instanceKey) {
    return store.findByField(index.indexName(prefix), "processInstanceKey", instanceKey, 100);
  }
}
