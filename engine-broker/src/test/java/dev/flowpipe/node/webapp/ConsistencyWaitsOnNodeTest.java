package dev.flowpipe.node.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.node.webapp.SharedWebappNode.Runs;
import dev.flowpipe.webapp.consistency.ReadYourWrites;
import dev.flowpipe.webapp.operations.OperationsController;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * 300 read-your-writes waits held open at once on the real node, more than the servlet container has threads (200):
 * while they wait, the health and readiness probes and a plain search answer within a second (the median; the slowest
 * within a few, as on this shared machine without any wait), since no wait holds a thread. Then half of them reach
 * their position (variable changes on an instance of its own write past it) and answer {@code reached}; the other
 * half, for a position the log never reaches, answer {@code timed-out} after their timeout, as documented. One
 * instance is added to the shared node's.
 */
@ExtendWith(SharedWebappNode.class)
@ResourceLock(SharedWebappNode.LOCK)
class ConsistencyWaitsOnNodeTest {

  private static final int WAITS = 300;
  private static final long AHEAD = 400;
  private static final String NEVER_REACHED_TIMEOUT = "10s";
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  @Test
  void healthReadinessAndASearchAnswerWithinASecondWhile300WaitsAreHeldAndTheWaitsEndAsDocumented(Runs runs)
      throws Exception {
    String base = runs.baseUrl();
    // one instance of its own, whose variables are then set again and again: records that change documents (the
    // export position moves with a bulk of documents), without adding many instances to the shared node's lists
    try (ZeebeClient client = runs.node().client()) {
      client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess("ryw-load").startEvent()
          .serviceTask("work", t -> t.zeebeJobType("ryw-load-work")).endEvent().done(), "ryw-load.bpmn").send().join();
    }
    Http.Answer created = Http.post(base + "/v2/process-instances", "{\"processDefinitionId\": \"ryw-load\"}");
    long instance = created.json().path("processInstanceKey").asLong();
    assertThat(created.status()).as(created.raw().body()).isEqualTo(200);
    String[] written = created.header(OperationsController.POSITION_HEADER).split(":");
    int partition = Integer.parseInt(written[0]);
    // far enough ahead that the log's background records (job time-outs) do not reach it while the probes run; the
    // variable changes below write past it
    long ahead = Long.parseLong(written[1]) + AHEAD;
    ReadYourWrites waits = runs.node().context().getBean(ReadYourWrites.class);

    // each probe once before: its first answer's one-off costs (class loading, the first store call) are not the waits'
    List<Long> before = List.of(timed(() -> get(base + "/actuator/health")),
        timed(() -> get(base + "/actuator/health/readiness")),
        timed(() -> Http.post(base + "/v2/process-instances/search", "{\"page\": {\"limit\": 1}}")));
    long opening = System.nanoTime();
    List<CompletableFuture<HttpResponse<String>>> reaching = new ArrayList<>();
    List<CompletableFuture<HttpResponse<String>>> never = new ArrayList<>();
    for (int i = 0; i < WAITS / 2; i++) {
      reaching.add(searchWaitingFor(base, partition, ahead, "30s"));
      // held only through the opening and the probes (1.2 s at most in CI runs): the test waits out their timeout
      never.add(searchWaitingFor(base, partition, Long.MAX_VALUE / 2, NEVER_REACHED_TIMEOUT));
    }
    await().atMost(Duration.ofSeconds(40)).until(waits::waiting, org.hamcrest.Matchers.equalTo(WAITS));
    System.out.printf("%d waits open after %d ms%n", WAITS, (System.nanoTime() - opening) / 1_000_000);

    List<Long> millis = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      millis.add(timed(() -> assertThat(get(base + "/actuator/health").statusCode()).isEqualTo(200)));
      millis.add(timed(() -> assertThat(get(base + "/actuator/health/readiness").statusCode()).isEqualTo(200)));
      millis.add(timed(() -> assertThat(Http.post(base + "/v2/process-instances/search",
          "{\"filter\": {\"processDefinitionId\": \"webapp-order\"}, \"page\": {\"limit\": 1}}").status())
          .isEqualTo(200)));
    }
    int stillWaiting = waits.waiting();
    System.out.printf("before the waits: health, readiness, search answered in %s ms; with %d waits held: %s ms%n",
        before, stillWaiting, millis);
    assertThat(stillWaiting).as("all waits still held while the probes ran").isEqualTo(WAITS);
    // on this shared 2-core machine a single answer can take a second with no wait held at all (see the probes'
    // times before the waits); a starved probe would instead wait for the waits' own timeouts (10 s and more)
    List<Long> sorted = millis.stream().sorted().toList();
    assertThat(sorted.get(sorted.size() / 2)).as("median answer time, ms").isLessThan(1000);
    assertThat(sorted.getLast()).as("slowest answer time, ms").isLessThan(5000);

    long writtenAt = System.nanoTime();
    try (ZeebeClient client = runs.node().client()) {
      // each change of a variable writes its command and at least two events: these take the log past the reaching
      // waits' position (ten at a time: hundreds at once would meet the broker's request limit, RESOURCE_EXHAUSTED)
      for (int i = 0; i < AHEAD; i += 10) {
        List<CompletableFuture<?>> publications = new ArrayList<>();
        for (int j = 0; j < 10; j++) {
          publications.add(client.newSetVariablesCommand(instance).variables(java.util.Map.of("round", i + j)).send()
              .toCompletableFuture());
        }
        CompletableFuture.allOf(publications.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      }
    }
    for (CompletableFuture<HttpResponse<String>> wait : reaching) {
      HttpResponse<String> answer = wait.get(120, TimeUnit.SECONDS);
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(answer.headers().firstValue("Flowpipe-Consistency")).hasValue("reached");
    }
    long reachedMillis = (System.nanoTime() - writtenAt) / 1_000_000;
    for (CompletableFuture<HttpResponse<String>> wait : never) {
      HttpResponse<String> answer = wait.get(120, TimeUnit.SECONDS);
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(answer.headers().firstValue("Flowpipe-Consistency")).hasValue("timed-out");
    }
    System.out.printf("150 waits reached %d ms after the variable changes began; 150 timed out%n", reachedMillis);
    assertThat(waits.waiting()).isZero();
  }

  private static CompletableFuture<HttpResponse<String>> searchWaitingFor(String base, int partition, long position,
      String timeout) {
    String body = "{\"filter\": {\"processDefinitionId\": \"ryw-load\"}, \"page\": {\"limit\": 1}, \"consistency\":"
        + " {\"positions\": [{\"partitionId\": " + partition + ", \"position\": " + position + "}], \"timeout\": \""
        + timeout + "\"}}";
    return HTTP.sendAsync(HttpRequest.newBuilder(URI.create(base + "/v2/process-instances/search"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String url) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static long timed(Runnable request) {
    long start = System.nanoTime();
    request.run();
    return (System.nanoTime() - start) / 1_000_000;
  }
}
