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
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The operations against the real engine of the shared node (operations switched on there, authentication off): each
 * command carried out, the engine's refusals as Camunda's REST API answers them, and read-your-writes: the position an
 * operation answers with, given to the next search, makes that search show the operation's effect without waiting.
 * Each test works on instances of its own process, so the other web app tests' data stays as it was.
 */
@ExtendWith(SharedWebappNode.class)
@ResourceLock(SharedWebappNode.LOCK)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperationsOnNodeTest {

  private Runs runs;

  @BeforeAll
  void deploy(Runs runs) {
    this.runs = runs;
    try (ZeebeClient client = runs.node().client()) {
      client.newDeployResourceCommand()
          .addProcessModel(Bpmn.createExecutableProcess("ops-wait").startEvent()
              .serviceTask("work", t -> t.zeebeJobType("ops-work")).endEvent().done(), "ops-wait.bpmn")
          .addProcessModel(Bpmn.createExecutableProcess("ops-message").startEvent()
              .intermediateCatchEvent("paid", e -> e.message(m -> m.name("ops-paid").zeebeCorrelationKeyExpression("orderId")))
              .endEvent().done(), "ops-message.bpmn")
          .addProcessModel(Bpmn.createExecutableProcess("ops-parent").startEvent()
              .callActivity("call", c -> c.zeebeProcessId("ops-wait")).endEvent().done(), "ops-parent.bpmn")
          .send().join();
    }
  }

  private String url(String path) {
    return runs.baseUrl() + path;
  }

  private Answer create(String processId, String variables) {
    return Http.post(url("/v2/process-instances"),
        "{\"processDefinitionId\": \"" + processId + "\", \"variables\": " + variables + "}");
  }

  /** A search that waits for the operation's position, as a client that read the answer's header would ask. */
  private JsonNode searchAfter(Answer operation, String entity, String filter) {
    String written = operation.header(OperationsController.POSITION_HEADER);
    assertThat(written).as("the operation's answer names the position its effect is written at").isNotNull();
    String[] parts = written.split(":");
    Answer answer = Http.post(url("/v2/" + entity + "/search"), "{\"filter\": " + filter
        + ", \"consistency\": {\"positions\": [{\"partitionId\": " + parts[0] + ", \"position\": " + parts[1]
        + "}], \"timeout\": \"10s\"}}");
    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
    assertThat(answer.json().path("consistency").path("reached").asBoolean()).as(answer.raw().body()).isTrue();
    return answer.json();
  }

  @Test
  void createsAnInstanceAndTheNextSearchShowsIt() {
    Answer created = create("ops-wait", "{\"orderId\": \"c-1\"}");

    assertThat(created.status()).as(created.raw().body()).isEqualTo(200);
    String key = created.json().path("processInstanceKey").asText();
    assertThat(created.json().path("processDefinitionId").asText()).isEqualTo("ops-wait");
    assertThat(created.json().path("processDefinitionVersion").asInt()).isEqualTo(1);
    JsonNode found = searchAfter(created, "process-instances", "{\"processInstanceKey\": \"" + key + "\"}");
    assertThat(found.path("items")).singleElement()
        .satisfies(item -> assertThat(item.path("state").asText()).isEqualTo("ACTIVE"));
  }

  @Test
  void cancelsAnInstanceAndAnEndedOneIsNotFound() {
    String key = create("ops-wait", "{}").json().path("processInstanceKey").asText();

    Answer cancelled = Http.post(url("/v2/process-instances/" + key + "/cancellation"), "{}");

    assertThat(cancelled.status()).as(cancelled.raw().body()).isEqualTo(204);
    JsonNode found = searchAfter(cancelled, "process-instances", "{\"processInstanceKey\": \"" + key + "\"}");
    assertThat(found.path("items").get(0).path("state").asText()).isIn("CANCELED", "TERMINATED");
    Answer again = Http.post(url("/v2/process-instances/" + key + "/cancellation"), "{}");
    assertThat(again.status()).isEqualTo(404);
    assertThat(again.header("Content-Type")).startsWith("application/problem+json");
  }

  @Test
  void resolvingAJobIncidentGivesTheJobARetryFirst() {
    try (ZeebeClient client = runs.node().client()) {
      long instance = create("ops-wait", "{\"orderId\": \"r-1\"}").json().path("processInstanceKey").asLong();
      ActivatedJob job = activate(client, instance);
      client.newFailCommand(job).retries(0).errorMessage("no stock").send().join();
      // the incident comes from the client's fail command, not from an operation: no position to wait for
      String incident = await().atMost(Duration.ofSeconds(30)).until(() -> Http.post(url("/v2/incidents/search"),
              "{\"filter\": {\"processInstanceKey\": \"" + instance + "\", \"state\": \"ACTIVE\"}}").json()
          .path("items").path(0).path("incidentKey").asText(null), k -> k != null);

      Answer resolved = Http.post(url("/v2/incidents/" + incident + "/resolution"), "{}");

      assertThat(resolved.status()).as(resolved.raw().body()).isEqualTo(204);
      JsonNode found = searchAfter(resolved, "incidents", "{\"incidentKey\": \"" + incident + "\"}");
      assertThat(found.path("items").get(0).path("state").asText()).isEqualTo("RESOLVED");
      assertThat(activate(client, instance).getRetries()).as("the job was given a retry").isEqualTo(1);
    }
  }

  @Test
  void changesAJobsRetriesAndSetsVariablesOnAScope() {
    try (ZeebeClient client = runs.node().client()) {
      long instance = create("ops-wait", "{\"orderId\": \"j-1\"}").json().path("processInstanceKey").asLong();
      ActivatedJob job = activate(client, instance);

      Answer retries = Http.send("PATCH", url("/v2/jobs/" + job.getKey()), "{\"changeset\": {\"retries\": 7}}");
      assertThat(retries.status()).as(retries.raw().body()).isEqualTo(204);
      assertThat(searchAfter(retries, "jobs", "{\"jobKey\": \"" + job.getKey() + "\"}").path("items").get(0)
          .path("retries").asInt()).isEqualTo(7);

      Answer variables = Http.send("PUT", url("/v2/element-instances/" + instance + "/variables"),
          "{\"variables\": {\"orderId\": \"j-2\", \"note\": \"checked\"}}");
      assertThat(variables.status()).as(variables.raw().body()).isEqualTo(204);
      JsonNode found = searchAfter(variables, "variables", "{\"processInstanceKey\": \"" + instance + "\"}");
      assertThat(found.path("items")).extracting(v -> v.path("name").asText() + "=" + v.path("value").asText())
          .containsExactlyInAnyOrder("orderId=\"j-2\"", "note=\"checked\"");
    }
  }

  @Test
  void publishesAMessageThatAWaitingInstanceReceives() {
    String key = create("ops-message", "{\"orderId\": \"m-1\"}").json().path("processInstanceKey").asText();

    Answer published = Http.post(url("/v2/messages/publication"),
        "{\"name\": \"ops-paid\", \"correlationKey\": \"m-1\", \"timeToLive\": 60000}");

    assertThat(published.status()).as(published.raw().body()).isEqualTo(200);
    assertThat(published.json().path("messageKey").asText()).matches("\\d+");
    await().atMost(Duration.ofSeconds(30)).until(() -> Http.post(url("/v2/process-instances/search"),
        "{\"filter\": {\"processInstanceKey\": \"" + key + "\", \"state\": \"COMPLETED\"}}").json()
        .path("page").path("totalItems").asLong() == 1);
  }

  @Test
  void aBatchCancelsEveryActiveInstanceTheFilterMatches() {
    List<String> keys = List.of(create("ops-wait", "{\"orderId\": \"b-1\"}"), create("ops-wait",
        "{\"orderId\": \"b-2\"}")).stream().map(a -> a.json().path("processInstanceKey").asText()).toList();
    String filter = "{\"processInstanceKey\": {\"$in\": [\"" + String.join("\", \"", keys) + "\"]}}";
    // the instances must be searchable for the batch to find them: the last create's position says when
    searchAfter(create("ops-wait", "{}"), "process-instances", filter);

    Answer started = Http.post(url("/v2/process-instances/cancellation"), "{\"filter\": " + filter + "}");

    assertThat(started.status()).as(started.raw().body()).isEqualTo(200);
    assertThat(started.json().path("batchOperationType").asText()).isEqualTo("CANCEL_PROCESS_INSTANCE");
    String batch = started.json().path("batchOperationKey").asText();
    // a batch runs in the background by design: its progress is what a client follows
    JsonNode ended = await().atMost(Duration.ofSeconds(30)).until(
        () -> Http.get(url("/v2/batch-operations/" + batch)).json(), b -> !"ACTIVE".equals(b.path("state").asText()));
    assertThat(ended.path("state").asText()).isEqualTo("COMPLETED");
    assertThat(ended.path("operationsTotalCount").asInt()).isEqualTo(2);
    JsonNode items = Http.post(url("/v2/batch-operation-items/search"),
        "{\"filter\": {\"batchOperationKey\": \"" + batch + "\"}}").json();
    assertThat(items.path("items")).extracting(i -> i.path("itemKey").asText() + " " + i.path("state").asText())
        .containsExactlyInAnyOrder(keys.get(0) + " COMPLETED", keys.get(1) + " COMPLETED");
    await().atMost(Duration.ofSeconds(30)).until(() -> Http.post(url("/v2/process-instances/search"),
        "{\"filter\": " + filter + "}").json().path("items").findValuesAsText("state").stream()
        .allMatch(state -> state.equals("CANCELED") || state.equals("TERMINATED")));
  }

  @Test
  void theEnginesRefusalsAreAnsweredAsCamundasApiDoes() {
    Answer unknownProcess = create("ops-no-such-process", "{}");
    assertThat(unknownProcess.status()).as(unknownProcess.raw().body()).isEqualTo(404);
    Answer unknownJob = Http.send("PATCH", url("/v2/jobs/2251799813685249"), "{\"changeset\": {\"retries\": 1}}");
    assertThat(unknownJob.status()).as(unknownJob.raw().body()).isEqualTo(404);
    String duplicate = "{\"name\": \"ops-dup\", \"correlationKey\": \"d-1\", \"timeToLive\": 60000, \"messageId\": \"once\"}";
    assertThat(Http.post(url("/v2/messages/publication"), duplicate).status()).isEqualTo(200);
    Answer again = Http.post(url("/v2/messages/publication"), duplicate);
    assertThat(again.status()).as("the engine refuses a second message with that id: " + again.raw().body())
        .isEqualTo(409);
    Answer unknownIncident = Http.post(url("/v2/incidents/2251799813685249/resolution"), "{}");
    assertThat(unknownIncident.status()).as(unknownIncident.raw().body()).isEqualTo(404);
    Answer unknownScope = Http.send("PUT", url("/v2/element-instances/2251799813685249/variables"),
        "{\"variables\": {\"a\": 1}}");
    assertThat(unknownScope.status()).as(unknownScope.raw().body()).isEqualTo(404);
    Answer badBody = Http.send("PUT", url("/v2/element-instances/2251799813685249/variables"), "{\"variables\": 3}");
    assertThat(badBody.status()).isEqualTo(400);
    assertThat(badBody.json().path("part").asText()).isEqualTo("variables");
  }

  @Test
  void aKeyWhoseBitsNameNoPartitionIsAnUnknownKey404ForEveryOperation() {
    // key 1 names partition 0; the next names partition 3 (this node has fewer), both with a counter of 1
    for (String key : List.of("1", Long.toString(3L << 51 | 1))) {
      List<Answer> answers = List.of(
          Http.post(url("/v2/process-instances/" + key + "/cancellation"), "{}"),
          Http.post(url("/v2/incidents/" + key + "/resolution"), "{}"),
          Http.send("PATCH", url("/v2/jobs/" + key), "{\"changeset\": {\"retries\": 1}}"),
          Http.send("PUT", url("/v2/element-instances/" + key + "/variables"), "{\"variables\": {\"a\": 1}}"));

      for (Answer answer : answers) {
        assertThat(answer.status()).as(key + ": " + answer.raw().body()).isEqualTo(404);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(answer.json().path("detail").asText()).contains("partition");
      }
    }
  }

  @Test
  void cancellingACalledInstanceIsRefusedWith409AsTheEngineCancelsOnlyRootInstances() {
    Answer parent = create("ops-parent", "{}");
    String child = await().atMost(Duration.ofSeconds(30)).until(() -> Http.post(url("/v2/process-instances/search"),
        "{\"filter\": {\"parentProcessInstanceKey\": \"" + parent.json().path("processInstanceKey").asText()
            + "\"}}").json().path("items").path(0).path("processInstanceKey").asText(null), k -> k != null);

    Answer refused = Http.post(url("/v2/process-instances/" + child + "/cancellation"), "{}");

    assertThat(refused.status()).as(refused.raw().body()).isEqualTo(409);
    assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
  }

  private static ActivatedJob activate(ZeebeClient client, long instance) {
    return await().atMost(Duration.ofSeconds(30)).until(() -> {
      List<ActivatedJob> jobs = client.newActivateJobsCommand().jobType("ops-work").maxJobsToActivate(10)
          .timeout(Duration.ofSeconds(2)).send().join().getJobs();
      return jobs.stream().filter(j -> j.getProcessInstanceKey() == instance).findFirst().orElse(null);
    }, j -> j != null);
  }
}
