package dev.flowpipe.benchmarks.scenario.operations;

import dev.flowpipe.benchmarks.report.Percentiles;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flowpipe.benchmarks.scenario.operations.WebappClient.Answer;
import dev.flowpipe.testsupport.CommandOutcome;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.HdrHistogram.Histogram;

/**
 * The time from an operation's answer to its effect in the UI's next read: after each operation (set variables, update
 * a job's retries, resolve an incident, move a token to the next task, migrate to version 2, cancel an instance), the
 * search the instance page sends next for the entity the operation changed, timed until an answer shows the effect.
 * Alternately (so both see the same conditions) that read carries the answer's {@code Flowpipe-Written-Position} as
 * {@code consistency.positions}, as the UI sends it, or is sent without and again every poll interval until it shows
 * the effect (the baseline). A few users operate at once, each one operation after another.
 */
public final class OperationVisibility {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WAITING = "ops-wait";
  private static final String FAILING = "ops-fragile";
  private static final String MOVING = "ops-move";
  private static final String MIGRATING = "ops-migrate";
  private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(30);

  /**
   * One kind of operation's figures.
   *
   * @param read the search the UI sends next (the instance page's read of the changed entity)
   * @param withPositionsMillis operation answered to a read with its position showing the effect
   * @param pollingMillis operation answered to a read without it, polled, showing the effect
   * @param readsWithPositionsTimedOut reads with the position whose wait timed out (the UI's 2 s) without the
   *     effect (then polled on)
   * @param readsWithPositionsReachedWithoutEffect reads with the position that said they caught up and still did not
   *     show the effect: a read-your-writes defect if ever above 0
   * @param answersWithoutPosition operation answers without the position header (then polled)
   * @param readsPerOperationWithPositions reads sent per operation until one showed the effect, with the positions
   * @param readsPerOperationPolling the same, polled without them
   * @param refusedBusy operations answered 503 (the engine's flow control refusing the command), sent again after
   *     100 ms as a person would click again; the time runs from the accepted one's answer
   */
  public record KindResult(String operation, String read, Percentiles withPositionsMillis,
      Percentiles pollingMillis, long readsWithPositionsTimedOut, long readsWithPositionsReachedWithoutEffect,
      long answersWithoutPosition, double readsPerOperationWithPositions, double readsPerOperationPolling,
      long refusedBusy) {}

  /** The counts of one kind, from every user's thread. */
  private static final class Tally {
    final AtomicLong timedOut = new AtomicLong();
    final AtomicLong reachedWithoutEffect = new AtomicLong();
    final AtomicLong withoutPosition = new AtomicLong();
    final AtomicLong refusedBusy = new AtomicLong();
    final AtomicLong readsWithPositions = new AtomicLong();
    final AtomicLong readsPolling = new AtomicLong();
  }

  /** One operation to carry out and how to see its effect. */
  private record Operation(String method, String path, String body, String readEntity, ObjectNode read,
      Predicate<JsonNode> shows) {}

  private final WebappClient webapp;
  private final Duration pollInterval;
  private final int users;

  /** @param users people operating at once, each one operation after another (the kind's operations shared out) */
  public OperationVisibility(WebappClient webapp, Duration pollInterval, int users) {
    this.webapp = webapp;
    this.pollInterval = pollInterval;
    this.users = users;
  }

  /**
   * Instances waiting at an activated job, instances with an incident, instances waiting at the first of two tasks
   * (to be moved to the second) and instances of version 1 of a process with a version 2 (to be migrated to it):
   * {@code count} of each.
   */
  public record Targets(List<ActivatedJob> jobs, List<Incident> incidents, List<Waiting> moving,
      List<Long> migrating, long version2) {}

  /** An instance and the element instance of the task it waits at. */
  public record Waiting(long instanceKey, long elementInstanceKey) {}

  /** An open incident and its instance. */
  public record Incident(long instanceKey, long incidentKey) {}

  public static Targets prepare(ZeebeClient client, WebappClient webapp, int count) throws InterruptedException {
    client.newDeployResourceCommand()
        .addProcessModel(Bpmn.createExecutableProcess(WAITING).startEvent()
            .serviceTask("work", t -> t.zeebeJobType(WAITING)).endEvent().done(), WAITING + ".bpmn")
        .addProcessModel(Bpmn.createExecutableProcess(FAILING).startEvent()
            .serviceTask("charge", t -> t.zeebeJobType(FAILING)).endEvent().done(), FAILING + ".bpmn")
        .addProcessModel(Bpmn.createExecutableProcess(MOVING).startEvent()
            .serviceTask("first", t -> t.zeebeJobType(MOVING)).serviceTask("second", t -> t.zeebeJobType(MOVING))
            .endEvent().done(), MOVING + ".bpmn")
        .addProcessModel(migrating("a"), MIGRATING + ".bpmn")
        .send().join();
    List<Long> migrating = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      for (String process : List.of(WAITING, FAILING, MOVING)) {
        CommandOutcome.untilAccepted(
            () -> client.newCreateInstanceCommand().bpmnProcessId(process).latestVersion().send().join());
      }
      migrating.add(CommandOutcome.untilAccepted(() -> client.newCreateInstanceCommand().bpmnProcessId(MIGRATING)
          .latestVersion().send().join()).getProcessInstanceKey());
    }
    long version2 = CommandOutcome.untilAccepted(() -> client.newDeployResourceCommand()
        .addProcessModel(migrating("a2"), MIGRATING + ".bpmn").send().join()).getProcesses().getFirst()
        .getProcessDefinitionKey();
    List<ActivatedJob> jobs = activate(client, WAITING, count);
    for (ActivatedJob job : activate(client, FAILING, count)) {
      CommandOutcome.untilAccepted(
          () -> client.newFailCommand(job).retries(0).errorMessage("declined by the benchmark").send().join());
    }
    List<Incident> incidents = new ArrayList<>();
    searched(webapp, "incidents", "{\"filter\": {\"processDefinitionId\": \"" + FAILING + "\", \"state\": \"ACTIVE\"},"
        + " \"page\": {\"limit\": " + count + "}}", count).forEach(i -> incidents.add(
            new Incident(i.path("processInstanceKey").asLong(), i.path("incidentKey").asLong())));
    List<Waiting> moving = new ArrayList<>();
    searched(webapp, "element-instances", "{\"filter\": {\"processDefinitionId\": \"" + MOVING + "\", \"elementId\":"
        + " \"first\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": " + count + "}}", count).forEach(e -> moving.add(
            new Waiting(e.path("processInstanceKey").asLong(), e.path("elementInstanceKey").asLong())));
    // the migration's read looks for the new definition: the read model first shows every instance on the old one
    searched(webapp, "element-instances", "{\"filter\": {\"processDefinitionId\": \"" + MIGRATING + "\","
        + " \"elementId\": \"a\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": " + count + "}}", count);
    return new Targets(jobs, incidents, moving, migrating, version2);
  }

  private static BpmnModelInstance migrating(String task) {
    return Bpmn.createExecutableProcess(MIGRATING).startEvent().serviceTask(task, t -> t.zeebeJobType(MIGRATING))
        .endEvent().done();
  }

  /** The items of a search once it finds {@code count} (polled every 200 ms for up to 60 s). */
  private static JsonNode searched(WebappClient webapp, String entity, String request, int count)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      JsonNode items = webapp.expect(200, "POST", "/v2/" + entity + "/search", request).json().path("items");
      if (items.size() == count) {
        return items;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + items.size() + " of " + count + " " + entity
            + " in the read model after 60 s: " + request);
      }
      Thread.sleep(200);
    }
  }

  private static List<ActivatedJob> activate(ZeebeClient client, String type, int count) throws InterruptedException {
    List<ActivatedJob> jobs = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (jobs.size() < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + jobs.size() + " of " + count + " " + type
            + " jobs activated in 60 s");
      }
      int wanted = Math.min(1_000, count - jobs.size());
      jobs.addAll(CommandOutcome.untilAccepted(() -> client.newActivateJobsCommand().jobType(type)
          .maxJobsToActivate(wanted).timeout(Duration.ofHours(1)).send().join().getJobs()));
    }
    return jobs;
  }

  /** Runs every kind on the targets, in turn; set variables, job retries and cancel on the same instances. */
  public List<KindResult> run(Targets targets) throws InterruptedException {
    List<KindResult> results = new ArrayList<>();
    results.add(measure("set variables (PUT /v2/element-instances/{key}/variables)", "variables",
        targets.jobs().stream().map(job -> {
          long mark = job.getKey() % 1_000_000;
          return new Operation("PUT", "/v2/element-instances/" + job.getProcessInstanceKey() + "/variables",
              "{\"variables\": {\"opsMark\": " + mark + "}}", "variables",
              byInstance(job.getProcessInstanceKey(), "name"), answer -> anyItem(answer, item -> item.path("name")
                  .asText().equals("opsMark") && item.path("value").asText().equals(Long.toString(mark))));
        }).toList()));
    results.add(measure("update job retries (PATCH /v2/jobs/{key})", "jobs", targets.jobs().stream().map(job ->
        new Operation("PATCH", "/v2/jobs/" + job.getKey(), "{\"changeset\": {\"retries\": 9}}", "jobs",
            byInstance(job.getProcessInstanceKey(), "jobKey"), answer -> anyItem(answer, item ->
                item.path("jobKey").asLong() == job.getKey() && item.path("retries").asInt() == 9))).toList()));
    results.add(measure("resolve incident (POST /v2/incidents/{key}/resolution)", "incidents",
        targets.incidents().stream().map(incident -> new Operation("POST",
            "/v2/incidents/" + incident.incidentKey() + "/resolution", "{}", "incidents",
            byInstance(incident.instanceKey(), "creationTime"), answer -> anyItem(answer, item ->
                item.path("incidentKey").asLong() == incident.incidentKey()
                    && item.path("state").asText().equals("RESOLVED")))).toList()));
    results.add(measure("modify instance (POST /v2/process-instances/{key}/modification)", "element-instances",
        targets.moving().stream().map(waiting -> new Operation("POST",
            "/v2/process-instances/" + waiting.instanceKey() + "/modification",
            "{\"activateInstructions\": [{\"elementId\": \"second\"}], \"terminateInstructions\":"
                + " [{\"elementInstanceKey\": \"" + waiting.elementInstanceKey() + "\"}]}", "element-instances",
            byInstance(waiting.instanceKey(), "startDate"), answer -> anyItem(answer, item ->
                item.path("elementId").asText().equals("second") && item.path("state").asText().equals("ACTIVE"))))
            .toList()));
    results.add(measure("migrate instance (POST /v2/process-instances/{key}/migration)", "process-instances",
        targets.migrating().stream().map(instance -> {
          ObjectNode read = JSON.createObjectNode();
          read.putObject("filter").put("processInstanceKey", Long.toString(instance));
          read.putObject("page").put("limit", 1);
          return new Operation("POST", "/v2/process-instances/" + instance + "/migration",
              "{\"targetProcessDefinitionKey\": \"" + targets.version2() + "\", \"mappingInstructions\":"
                  + " [{\"sourceElementId\": \"a\", \"targetElementId\": \"a2\"}]}", "process-instances", read,
              answer -> anyItem(answer, item -> item.path("processDefinitionKey").asLong() == targets.version2()));
        }).toList()));
    results.add(measure("cancel instance (POST /v2/process-instances/{key}/cancellation)", "process-instances",
        targets.jobs().stream().map(job -> {
          ObjectNode read = JSON.createObjectNode();
          read.putObject("filter").put("processInstanceKey", Long.toString(job.getProcessInstanceKey()));
          read.putObject("page").put("limit", 1);
          return new Operation("POST", "/v2/process-instances/" + job.getProcessInstanceKey() + "/cancellation", "{}",
              "process-instances", read, answer -> anyItem(answer, item -> item.path("state").asText()
                  .equals("TERMINATED")));
        }).toList()));
    return results;
  }

  /** The instance page's read of one entity: every item of the instance, sorted as the page sorts it. */
  private static ObjectNode byInstance(long instanceKey, String sortField) {
    ObjectNode read = JSON.createObjectNode();
    read.putObject("filter").put("processInstanceKey", Long.toString(instanceKey));
    read.putObject("page").put("limit", 1000);
    read.putArray("sort").addObject().put("field", sortField);
    return read;
  }

  private static boolean anyItem(JsonNode answer, Predicate<JsonNode> test) {
    for (JsonNode item : answer.path("items")) {
      if (test.test(item)) {
        return true;
      }
    }
    return false;
  }

  private KindResult measure(String name, String entity, List<Operation> operations) throws InterruptedException {
    Histogram withPositions = new Histogram(TimeUnit.MINUTES.toMillis(1), 3);
    Histogram polling = new Histogram(TimeUnit.MINUTES.toMillis(1), 3);
    Tally tally = new Tally();
    try (ExecutorService people = Executors.newFixedThreadPool(users)) {
      List<Future<?>> done = new ArrayList<>();
      for (int u = 0; u < users; u++) {
        int user = u;
        done.add(people.submit(() -> {
          for (int i = user; i < operations.size(); i += users) {
            boolean positions = i % 2 == 0;
            long millis = once(operations.get(i), positions, tally);
            Histogram into = positions ? withPositions : polling;
            synchronized (into) {
              into.recordValue(millis);
            }
          }
          return null;
        }));
      }
      for (Future<?> each : done) {
        try {
          each.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException(name + ": " + e.getCause().getMessage(), e.getCause());
        }
      }
    }
    KindResult result = new KindResult(name, "POST /v2/" + entity + "/search (the instance page's read of it)",
        Percentiles.of(withPositions), Percentiles.of(polling), tally.timedOut.get(),
        tally.reachedWithoutEffect.get(), tally.withoutPosition.get(),
        perOperation(tally.readsWithPositions.get(), withPositions), perOperation(tally.readsPolling.get(), polling),
        tally.refusedBusy.get());
    System.out.printf("%-70s with positions %s, polling every %d ms %s; reads with positions timed out %d, caught up"
        + " without the effect %d, refused busy %d; reads per operation %.1f with positions, %.1f polling%n", name,
        result.withPositionsMillis(), pollInterval.toMillis(), result.pollingMillis(),
        result.readsWithPositionsTimedOut(), result.readsWithPositionsReachedWithoutEffect(), result.refusedBusy(),
        result.readsPerOperationWithPositions(), result.readsPerOperationPolling());
    return result;
  }

  private static double perOperation(long reads, Histogram operations) {
    return operations.getTotalCount() == 0 ? 0 : Math.round(10.0 * reads / operations.getTotalCount()) / 10.0;
  }

  /** Carries out one operation; the milliseconds from its answer to the first read that shows its effect. */
  private long once(Operation operation, boolean withPositions, Tally tally) throws InterruptedException {
    Answer answered;
    int attempts = 1;
    while ((answered = webapp.send(operation.method(), operation.path(), operation.body())).status() == 503
        && attempts++ < 100) {
      tally.refusedBusy.incrementAndGet();
      Thread.sleep(100);
    }
    if (answered.status() != 204) {
      throw new IllegalStateException(operation.method() + " " + operation.path() + " answered " + answered.status()
          + ": " + answered.body());
    }
    long start = System.nanoTime();
    AtomicLong reads = withPositions ? tally.readsWithPositions : tally.readsPolling;
    String path = "/v2/" + operation.readEntity() + "/search";
    if (withPositions) {
      if (answered.writtenPosition() == null) {
        tally.withoutPosition.incrementAndGet();
      } else {
        String[] position = answered.writtenPosition().split(":");
        ObjectNode read = operation.read().deepCopy();
        ObjectNode consistency = read.putObject("consistency").put("timeout", "2s"); // the UI's timeout
        consistency.putArray("positions").addObject().put("partitionId", Integer.parseInt(position[0]))
            .put("position", Long.parseLong(position[1]));
        reads.incrementAndGet();
        JsonNode answer = webapp.expect(200, "POST", path, read.toString()).json();
        if (operation.shows().test(answer)) {
          return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        }
        (answer.path("consistency").path("reached").asBoolean() ? tally.reachedWithoutEffect : tally.timedOut)
            .incrementAndGet();
      }
    }
    while (true) {
      reads.incrementAndGet();
      if (operation.shows().test(webapp.expect(200, "POST", path, operation.read().toString()).json())) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      }
      if (System.nanoTime() - start > GIVE_UP_NANOS) {
        throw new IllegalStateException(operation.method() + " " + operation.path() + ": effect not visible in "
            + path + " after 30 s");
      }
      Thread.sleep(pollInterval.toMillis());
    }
  }
}
