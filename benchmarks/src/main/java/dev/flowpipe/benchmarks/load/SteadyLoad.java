package dev.flowpipe.benchmarks.load;

import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.worker.JobWorker;
import java.time.Duration;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;

/**
 * The one-task process at a fixed rate on a node (deployed first, with the probe process), its jobs completed at once
 * by a streaming worker, until closed.
 */
public final class SteadyLoad implements AutoCloseable {

  private final JobWorker worker;
  private final Thread load;

  private SteadyLoad(JobWorker worker, Thread load) {
    this.worker = worker;
    this.load = load;
  }

  public static SteadyLoad start(ZeebeClient client, int instancesPerSecond) throws InterruptedException {
    ScenarioNodes.deploy(client);
    JobWorker worker = client.newWorker().jobType(Saturation.JOB_TYPE)
        .handler((jobs, job) -> jobs.newCompleteCommand(job.getKey()).send())
        .maxJobsActive(256).pollInterval(Duration.ofMillis(10)).streamEnabled(true).open();
    return new SteadyLoad(worker,
        Thread.ofPlatform().daemon().start(() -> Availability.backgroundLoad(client, instancesPerSecond)));
  }

  /** Creates no more instances; the worker goes on completing the jobs of those in flight until closed. */
  public void stopCreating() {
    load.interrupt();
  }

  @Override
  public void close() {
    stopCreating();
    worker.close();
  }
}
