package dev.flowpipe.benchmarks.scenario.operations;

import com.fasterxml.jackson.databind.JsonNode;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import dev.flowpipe.testsupport.CommandOutcome;

/**
 * A batch cancellation of waiting instances, by filter, while a background load runs: its throughput from the batch's
 * own progress (its start and end dates and counts) and from the engine (the instances' end dates, the engine's
 * timestamps of their termination records, as the read model holds them).
 */
public final class BatchThroughput {

  public static final String PROCESS = "ops-batch";

  /**
   * @param instances instances the batch took
   * @param completed items the batch reports done (completed or skipped)
   * @param failed items the batch reports failed
   * @param batchSeconds the batch's end date minus its start date
   * @param batchPerSecond instances per second by the batch's own dates
   * @param engineSeconds the request's answer (client clock) to the last instance's end date (engine clock, same
   *     machine)
   * @param enginePerSecond instances per second by the engine's end dates
   * @param terminated instances of the process the read model shows TERMINATED afterwards
   * @param startedAtMillis when the batch was asked for (epoch ms, client)
   * @param endedAtMillis when its progress first showed it ended (epoch ms, client)
   */
  public record Result(int instances, long completed, long failed, double batchSeconds, double batchPerSecond,
      double engineSeconds, double enginePerSecond, long terminated, long startedAtMillis, long endedAtMillis) {}

  private BatchThroughput() {}

  /** Deploys the process and starts {@code count} instances that wait (no worker), until the read model has them. */
  public static void prepare(ZeebeClient client, WebappClient webapp, int count) throws InterruptedException {
    client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess(PROCESS).startEvent()
        .serviceTask("wait", t -> t.zeebeJobType(PROCESS)).endEvent().done(), PROCESS + ".bpmn").send().join();
    for (int i = 0; i < count; i++) {
      CommandOutcome.untilAccepted(
          () -> client.newCreateInstanceCommand().bpmnProcessId(PROCESS).latestVersion().send().join());
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    long found;
    while ((found = active(webapp)) < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + found + " of " + count + " " + PROCESS + " instances active in the "
            + "read model after 120 s");
      }
      Thread.sleep(500);
    }
  }

  private static long active(WebappClient webapp) {
    return webapp.expect(200, "POST", "/v2/process-instances/search", "{\"filter\": {\"processDefinitionId\": \""
        + PROCESS + "\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}").json().path("page").path("totalItems")
        .asLong();
  }

  /** Asks for the batch cancellation and follows its progress (every 100 ms) until it has ended. */
  public static Result run(WebappClient webapp) throws InterruptedException {
    long asked = System.currentTimeMillis();
    JsonNode created = webapp.expect(200, "POST", "/v2/process-instances/cancellation",
        "{\"filter\": {\"processDefinitionId\": \"" + PROCESS + "\"}}").json();
    String key = created.path("batchOperationKey").asText();
    int total = created.path("operationsTotalCount").asInt();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    JsonNode batch;
    while ((batch = webapp.expect(200, "GET", "/v2/batch-operations/" + key, null).json()).path("state").asText()
        .equals("ACTIVE")) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("batch " + key + " still active after 10 minutes: " + batch);
      }
      Thread.sleep(100);
    }
    long ended = System.currentTimeMillis();
    double batchSeconds = Duration.between(Instant.parse(batch.path("startDate").asText()),
        Instant.parse(batch.path("endDate").asText())).toMillis() / 1000.0;
    // the engine's side: every instance's end date, once the read model holds them all
    String terminated = "{\"filter\": {\"processDefinitionId\": \"" + PROCESS + "\", \"state\": \"TERMINATED\"}, "
        + "\"sort\": [{\"field\": \"endDate\", \"order\": \"desc\"}], \"page\": {\"limit\": 1}}";
    JsonNode last;
    long count;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    do {
      Thread.sleep(200);
      last = webapp.expect(200, "POST", "/v2/process-instances/search", terminated).json();
      count = last.path("page").path("totalItems").asLong();
    } while (count < total && System.nanoTime() < until);
    long lastEnd = Instant.parse(last.path("items").path(0).path("endDate").asText()).toEpochMilli();
    double engineSeconds = (lastEnd - asked) / 1000.0;
    Result result = new Result(total, batch.path("operationsCompletedCount").asLong(),
        batch.path("operationsFailedCount").asLong(), batchSeconds, round(total / batchSeconds), engineSeconds,
        round(count / engineSeconds), count, asked, ended);
    System.out.println("batch: " + result);
    return result;
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
