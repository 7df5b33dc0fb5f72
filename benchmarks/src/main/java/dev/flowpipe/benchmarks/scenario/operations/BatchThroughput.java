package dev.flowpipe.benchmarks.scenario.operations;

import com.fasterxml.jackson.databind.JsonNode;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import dev.flowpipe.testsupport.CommandOutcome;

/**
 * A batch cancellation, or a batch modification (a token moved from the first task to the second), of waiting
 * instances, by filter, while a background load runs: its throughput from the batch's own progress (its start and end
 * dates and counts) and from the engine (the engine's timestamps, as the read model holds them, of the instances' ends,
 * or of the second task's activations).
 */
public final class BatchThroughput {

  /** What a batch does to its instances, and where the read model shows the engine did it. */
  public enum Kind {
    CANCEL("ops-batch", "/v2/process-instances/cancellation", "", "process-instances",
        "\"state\": \"TERMINATED\"", "endDate"),
    MODIFY("ops-batch-move", "/v2/process-instances/modification",
        ", \"moveInstructions\": [{\"sourceElementId\": \"first\", \"targetElementId\": \"second\"}]",
        "element-instances", "\"elementId\": \"second\"", "startDate");

    final String process;
    final String path;
    final String instructions;
    final String doneEntity;
    final String doneFilter;
    final String doneDate;

    Kind(String process, String path, String instructions, String doneEntity, String doneFilter, String doneDate) {
      this.process = process;
      this.path = path;
      this.instructions = instructions;
      this.doneEntity = doneEntity;
      this.doneFilter = doneFilter;
      this.doneDate = doneDate;
    }
  }

  /**
   * @param instances instances the batch took
   * @param completed items the batch reports done (completed or skipped)
   * @param failed items the batch reports failed
   * @param batchSeconds the batch's end date minus its start date
   * @param batchPerSecond instances per second by the batch's own dates
   * @param engineSeconds the request's answer (client clock) to the last instance's end date (engine clock, same
   *     machine)
   * @param enginePerSecond instances per second by the engine's end dates
   * @param terminated instances the read model shows done afterwards (TERMINATED; for a modification, with the
   *     second task activated)
   * @param startedAtMillis when the batch was asked for (epoch ms, client)
   * @param endedAtMillis when its progress first showed it ended (epoch ms, client)
   */
  public record Result(Kind kind, int instances, long completed, long failed, double batchSeconds,
      double batchPerSecond, double engineSeconds, double enginePerSecond, long terminated, long startedAtMillis,
      long endedAtMillis) {}

  private BatchThroughput() {}

  /**
   * Deploys the kind's process (one task, or two for a modification; no worker) and starts {@code count} instances
   * that wait at the first, until the read model has them there.
   */
  public static void prepare(ZeebeClient client, WebappClient webapp, Kind kind, int count)
      throws InterruptedException {
    var tasks = Bpmn.createExecutableProcess(kind.process).startEvent().serviceTask("first",
        t -> t.zeebeJobType(kind.process));
    var model = (kind == Kind.MODIFY ? tasks.serviceTask("second", t -> t.zeebeJobType(kind.process)) : tasks)
        .endEvent().done();
    client.newDeployResourceCommand().addProcessModel(model, kind.process + ".bpmn").send().join();
    for (int i = 0; i < count; i++) {
      CommandOutcome.untilAccepted(
          () -> client.newCreateInstanceCommand().bpmnProcessId(kind.process).latestVersion().send().join());
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    long found;
    while ((found = waiting(webapp, kind)) < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + found + " of " + count + " " + kind.process + " instances at"
            + " their first task in the read model after 120 s");
      }
      Thread.sleep(500);
    }
  }

  private static long waiting(WebappClient webapp, Kind kind) {
    return webapp.expect(200, "POST", "/v2/element-instances/search", "{\"filter\": {\"processDefinitionId\": \""
        + kind.process + "\", \"elementId\": \"first\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}").json()
        .path("page").path("totalItems").asLong();
  }

  /** Asks for the batch and follows its progress (every 100 ms) until it has ended. */
  public static Result run(WebappClient webapp, Kind kind) throws InterruptedException {
    long asked = System.currentTimeMillis();
    JsonNode created = webapp.expect(200, "POST", kind.path,
        "{\"filter\": {\"processDefinitionId\": \"" + kind.process + "\"}" + kind.instructions + "}").json();
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
    // the engine's side: the last instance's end (the second task's start), once the read model holds them all
    String done = "{\"filter\": {\"processDefinitionId\": \"" + kind.process + "\", " + kind.doneFilter + "}, "
        + "\"sort\": [{\"field\": \"" + kind.doneDate + "\", \"order\": \"desc\"}], \"page\": {\"limit\": 1}}";
    JsonNode last;
    long count;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    do {
      Thread.sleep(200);
      last = webapp.expect(200, "POST", "/v2/" + kind.doneEntity + "/search", done).json();
      count = last.path("page").path("totalItems").asLong();
    } while (count < total && System.nanoTime() < until);
    long lastEnd = Instant.parse(last.path("items").path(0).path(kind.doneDate).asText()).toEpochMilli();
    double engineSeconds = (lastEnd - asked) / 1000.0;
    Result result = new Result(kind, total, batch.path("operationsCompletedCount").asLong(),
        batch.path("operationsFailedCount").asLong(), batchSeconds, round(total / batchSeconds), engineSeconds,
        round(count / engineSeconds), count, asked, ended);
    System.out.println("batch " + kind + ": " + result);
    return result;
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
