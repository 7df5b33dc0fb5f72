package dev.flowpipe.node.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Instances of a process with two service tasks, run by a client as workers run them, and what that client sent and
 * received: the oracle for the read model. Each job is activated by a worker of its own name, failed once with retries
 * and a message of its instance, activated again and completed with two variables of its instance, a short {@code tag}
 * and a long {@code big}. The second task sets the same two variables again, so its values update those of the first.
 */
final class TwoTaskInstances {

  static final String PROCESS_ID = "two-tasks";

  static final BpmnModelInstance PROCESS =
      Bpmn.createExecutableProcess(PROCESS_ID).startEvent()
          .serviceTask("t1", t -> t.zeebeJobType(jobType(1)))
          .serviceTask("t2", t -> t.zeebeJobType(jobType(2)))
          .endEvent().done();

  /** A job as the client left it: its instance, its element, the last worker that took it, the failure it sent. */
  record SentJob(long key, long processInstanceKey, String elementId, String worker, int retries, String errorMessage) {}

  private final String run;
  private final int bigLength;
  // instance key -> its number in this run, in creation order
  private final Map<Long, Integer> numbers = new LinkedHashMap<>();
  // instance key -> the last task whose job the client completed
  private final Map<Long, Integer> lastTask = new HashMap<>();
  private final Map<Long, SentJob> jobs = new LinkedHashMap<>();
  private int activations;

  /**
   * @param run names this run's instances, workers and values apart from other runs on the same node
   * @param bigLength characters of each {@code big} value
   */
  TwoTaskInstances(String run, int bigLength) {
    this.run = run;
    this.bigLength = bigLength;
  }

  static String jobType(int task) {
    return PROCESS_ID + "-t" + task;
  }

  /** Creates {@code count} instances, one after another. */
  TwoTaskInstances create(ZeebeClient client, int count) {
    for (int i = 1; i <= count; i++) {
      long key = client.newCreateInstanceCommand().bpmnProcessId(PROCESS_ID).latestVersion().send().join()
          .getProcessInstanceKey();
      numbers.put(key, i);
    }
    return this;
  }

  /**
   * Works off the jobs of {@code task} of every instance: each is activated (one job per activation, so every job's
   * worker name is its own), failed once, activated again and completed with the variables of its instance and task.
   */
  TwoTaskInstances runTask(ZeebeClient client, int task) {
    return runTask(client, task, numbers.size());
  }

  /**
   * As {@link #runTask(ZeebeClient, int)}, until {@code upTo} jobs of the task are completed in all. It returns right
   * after a completion: no job is left activated, so another client can take over at once.
   */
  TwoTaskInstances runTask(ZeebeClient client, int task, int upTo) {
    int maxActivations = activations + 3 * numbers.size() + 20;
    while (completed(task) < Math.min(upTo, numbers.size())) {
      assertThat(activations).as("activations for task %d of run %s", task, run).isLessThan(maxActivations);
      String worker = "worker-" + run + "-" + ++activations;
      for (ActivatedJob job : activate(client, task, worker)) {
        long instance = job.getProcessInstanceKey();
        assertThat(numbers).as("an instance of run %s", run).containsKey(instance);
        String label = label(instance, task);
        SentJob failed = jobs.get(job.getKey());
        if (failed == null) {
          int retries = 1 + numbers.get(instance) % 4;
          String message = label + " failed once";
          client.newFailCommand(job).retries(retries).retryBackoff(Duration.ZERO).errorMessage(message).send().join();
          jobs.put(job.getKey(), new SentJob(job.getKey(), instance, "t" + task, worker, retries, message));
        } else {
          client.newCompleteCommand(job).variables(Map.of("tag", label, "big", big(label))).send().join();
          jobs.put(job.getKey(), new SentJob(failed.key(), instance, failed.elementId(), worker, failed.retries(),
              failed.errorMessage()));
          lastTask.put(instance, task);
        }
      }
    }
    return this;
  }

  /** Jobs of {@code task} the client completed. */
  private long completed(int task) {
    return lastTask.values().stream().filter(t -> t >= task).count();
  }

  /** Variable records the engine wrote for this run: each completion created or updated both variables. */
  long variableRecords() {
    return 2L * lastTask.values().stream().mapToInt(Integer::intValue).sum();
  }

  private static List<ActivatedJob> activate(ZeebeClient client, int task, String worker) {
    return client.newActivateJobsCommand().jobType(jobType(task)).maxJobsToActivate(1).workerName(worker)
        .timeout(Duration.ofMinutes(5)).fetchVariables("tag").requestTimeout(Duration.ofSeconds(10))
        .send().join().getJobs();
  }

  /** {@code a-17-t2}: run, instance number, task. */
  private String label(long instance, int task) {
    return run + "-" + numbers.get(instance) + "-t" + task;
  }

  private String big(String label) {
    return (label + ";").repeat(bigLength / (label.length() + 1) + 1).substring(0, bigLength);
  }

  List<Long> instanceKeys() {
    return List.copyOf(numbers.keySet());
  }

  List<SentJob> jobs() {
    return new ArrayList<>(jobs.values());
  }

  /**
   * The variables the instance holds after the tasks the client completed, by name, each value as the engine keeps it
   * (JSON).
   */
  Map<String, String> expectedVariables(long instance) {
    Integer task = lastTask.get(instance);
    if (task == null) {
      return Map.of();
    }
    String label = label(instance, task);
    return Map.of("tag", json(label), "big", json(big(label)));
  }

  private static String json(String plain) {
    return '"' + plain + '"'; // labels hold letters, digits, '-' and ';' only: nothing to escape
  }
}
