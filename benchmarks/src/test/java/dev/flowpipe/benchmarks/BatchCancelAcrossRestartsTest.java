package dev.flowpipe.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.ZeebeFuture;
import io.camunda.zeebe.client.api.response.ProcessInstanceEvent;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch cancel of 1,000 waiting instances through the REST API on a node process that is stopped with SIGTERM at
 * about a third of the batch and killed with SIGKILL at about two thirds, restarted on its data each time: the batch
 * goes on by itself, the engine's own records (written to files by {@link RecordFileExporter}, not read from the read
 * model) show every instance cancelled exactly once (one accepted CANCEL command, one ELEMENT_TERMINATED), and the
 * batch's progress endpoint reports all 1,000 items completed, none failed.
 */
class BatchCancelAcrossRestartsTest {

  private static final int INSTANCES = 1_000;
  private static final String PROCESS = "batch-restart";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path work;

  @Test
  void aBatchCancelGoesOnAfterASigtermAndASigkillAndCancelsEveryInstanceExactlyOnce() throws Exception {
    Path root = Path.of(System.getProperty("flowpipe.project.root", "..")).toAbsolutePath();
    Path records = work.resolve("records");
    List<String> arguments = List.of(
        // a fresh node under a burst of creations on busy cores refuses some (RESOURCE_EXHAUSTED): not the subject
        "--flowpipe.flow-control.enabled=false",
        "--flowpipe.broker.additional-exporters.recorder.class-name=" + RecordFileExporter.class.getName(),
        "--flowpipe.broker.additional-exporters.recorder.args." + RecordFileExporter.DIRECTORY + "=" + records,
        "--flowpipe.webapp.security.basic-auth=true",
        "--flowpipe.webapp.security.users[0].username=reader",
        "--flowpipe.webapp.security.users[0].password=r",
        "--flowpipe.webapp.security.users[1].username=operator",
        "--flowpipe.webapp.security.users[1].password=o",
        "--flowpipe.webapp.security.users[1].roles=write");
    String classpath = root.resolve("benchmarks/target/classes").toString();
    Path workDir = work.resolve("node");
    long started = System.nanoTime();

    // given 1,000 instances waiting at a service task no worker takes
    NodeProcess first = NodeProcess.start(root, workDir, arguments, classpath);
    NodeProcess node = first;
    List<Long> instances;
    try (ZeebeClient client = client(node)) {
      client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess(PROCESS).startEvent()
          .serviceTask("wait", t -> t.zeebeJobType("nobody")).endEvent().done(), PROCESS + ".bpmn").send().join();
      instances = create(client, INSTANCES);
    }
    awaitUntil("the read model shows the instances active", Duration.ofSeconds(60), () ->
        search(first, "process-instances", "{\"filter\": {\"processDefinitionId\": \"" + PROCESS
            + "\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}").path("page").path("totalItems").asLong()
            == INSTANCES);
    log("instances created and searchable", started);

    // when a user with the write role cancels them by filter, and the node stops twice on the way
    HttpResponse<String> answer = send(node, "operator", "o", "POST", "/v2/process-instances/cancellation",
        "{\"filter\": {\"processDefinitionId\": \"" + PROCESS + "\"}}");
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    JsonNode batch = JSON.readTree(answer.body());
    assertThat(batch.path("operationsTotalCount").asInt()).isEqualTo(INSTANCES);
    String key = batch.path("batchOperationKey").asText();

    awaitItemsDone(node, key, done -> done >= INSTANCES / 3);
    long doneAtStop = itemsDone(node, key);
    node.terminate();
    log("SIGTERM at " + doneAtStop + " items done", started);
    node = NodeProcess.start(root, workDir, node.ports(), arguments, classpath);
    log("restarted", started);

    awaitItemsDone(node, key, done -> done >= INSTANCES * 2 / 3);
    long doneAtKill = itemsDone(node, key);
    node.kill();
    log("SIGKILL at " + doneAtKill + " items done", started);
    node = NodeProcess.start(root, workDir, node.ports(), arguments, classpath);
    log("restarted", started);

    JsonNode progress;
    try {
      NodeProcess restarted = node;
      awaitUntil("the batch ends by itself", Duration.ofSeconds(60), () ->
          !"ACTIVE".equals(JSON.readTree(read(restarted, "/v2/batch-operations/" + key)).path("state").asText()));
      log("batch ended", started);
      progress = JSON.readTree(read(node, "/v2/batch-operations/" + key));
      JsonNode completedItems = items(node, key, "COMPLETED");

      // then the progress endpoint says every instance was cancelled, none failed
      SoftAssertions.assertSoftly(soft -> {
        soft.assertThat(progress.path("state").asText()).as("batch state").isEqualTo("COMPLETED");
        soft.assertThat(progress.path("operationsTotalCount").asInt()).as("total").isEqualTo(INSTANCES);
        soft.assertThat(progress.path("operationsCompletedCount").asInt()).as("completed").isEqualTo(INSTANCES);
        soft.assertThat(progress.path("operationsFailedCount").asInt()).as("failed").isZero();
        soft.assertThat(completedItems.path("page").path("totalItems").asInt()).as("items COMPLETED")
            .isEqualTo(INSTANCES);
      });
      assertThat(doneAtKill).as("the kill came before the batch's end").isLessThan(INSTANCES);
    } finally {
      node.terminate(); // the recorder syncs its file on a clean stop
      node.close();
    }

    // and the engine's records show each instance cancelled exactly once
    EngineCancellations engine = EngineCancellations.read(records);
    SoftAssertions.assertSoftly(soft -> {
      for (long instance : instances) {
        EngineCancellations.Counts counts = engine.of(instance);
        soft.assertThat(counts.terminations()).as("ELEMENT_TERMINATED of instance %d", instance).isEqualTo(1);
        soft.assertThat(counts.accepted()).as("accepted CANCEL commands of instance %d", instance).isEqualTo(1);
      }
    });
    log("checked; CANCEL commands sent again and rejected: " + engine.rejections(), started);
  }

  private static ZeebeClient client(NodeProcess node) {
    return ZeebeClient.newClientBuilder().grpcAddress(node.gateway()).usePlaintext()
        .defaultRequestTimeout(Duration.ofSeconds(20)).build();
  }

  /** {@code count} instances, 20 requests in flight at a time. */
  private static List<Long> create(ZeebeClient client, int count) {
    List<Long> keys = new ArrayList<>();
    for (int from = 0; from < count; from += 20) {
      List<ZeebeFuture<ProcessInstanceEvent>> window = new ArrayList<>();
      for (int i = from; i < Math.min(count, from + 20); i++) {
        window.add(client.newCreateInstanceCommand().bpmnProcessId(PROCESS).latestVersion().send());
      }
      window.forEach(created -> keys.add(created.join().getProcessInstanceKey()));
    }
    return keys;
  }

  private static void awaitItemsDone(NodeProcess node, String key, LongPredicate enough) throws Exception {
    awaitUntil("batch items done", Duration.ofSeconds(60), () -> enough.test(itemsDone(node, key)));
  }

  /** Items no longer ACTIVE, as the batch's item search shows them. */
  private static long itemsDone(NodeProcess node, String key) throws Exception {
    return INSTANCES - items(node, key, "ACTIVE").path("page").path("totalItems").asLong();
  }

  private static JsonNode items(NodeProcess node, String key, String state) throws Exception {
    return search(node, "batch-operation-items", "{\"filter\": {\"batchOperationKey\": \"" + key
        + "\", \"state\": \"" + state + "\"}, \"page\": {\"limit\": 0}}");
  }

  private static JsonNode search(NodeProcess node, String entity, String request) throws Exception {
    HttpResponse<String> answer = send(node, "reader", "r", "POST", "/v2/" + entity + "/search", request);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return JSON.readTree(answer.body());
  }

  private static String read(NodeProcess node, String path) throws Exception {
    HttpResponse<String> answer = send(node, "reader", "r", "GET", path, null);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return answer.body();
  }

  private static HttpResponse<String> send(NodeProcess node, String user, String password, String method,
      String path, String body) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
            (user + ":" + password).getBytes(StandardCharsets.UTF_8)))
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build();
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private interface Condition {
    boolean holds() throws Exception;
  }

  private static void awaitUntil(String what, Duration atMost, Condition condition) throws Exception {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + atMost + ": " + what);
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  private static void log(String event, long started) {
    System.out.printf("%6.1f s  %s%n", (System.nanoTime() - started) / 1e9, event);
  }
}
