package dev.flowpipe.benchmarks.load;

import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.worker.JobWorker;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drives the engine as hard as it goes: instances of a one-service-task process started with a bounded number in
 * flight, their jobs completed by a streaming worker. Counts instances whose job completed per second.
 */
public final class Saturation {

  public static final String PROCESS = "bench";
  public static final String JOB_TYPE = "bench-work";

  private static final Duration DRAIN = Duration.ofSeconds(15);

  private Saturation() {}

  /** Completed instances per second over {@code measure}, after {@code warmUp}. */
  public static double run(ZeebeClient client, Duration warmUp, Duration measure, int inFlight) throws InterruptedException {
    AtomicLong completed = new AtomicLong();
    Semaphore window = new Semaphore(inFlight);
    try (JobWorker worker = client.newWorker().jobType(JOB_TYPE)
        .handler((jobs, job) -> jobs.newCompleteCommand(job.getKey()).send()
            .whenComplete((ok, error) -> {
              completed.incrementAndGet();
              window.release();
            }))
        .maxJobsActive(inFlight * 2).pollInterval(Duration.ofMillis(10)).streamEnabled(true).open()) {
      long end = System.nanoTime() + warmUp.plus(measure).toNanos();
      long measureStart = System.nanoTime() + warmUp.toNanos();
      long startCount = -1;
      while (System.nanoTime() < end) {
        if (startCount < 0 && System.nanoTime() >= measureStart) {
          startCount = completed.get();
        }
        if (window.tryAcquire(5, TimeUnit.MILLISECONDS)) {
          client.newCreateInstanceCommand().bpmnProcessId(PROCESS).latestVersion().send()
              .whenComplete((ok, error) -> {
                if (error != null) {
                  window.release(); // rejected (backpressure): the slot is free again
                }
              });
        }
      }
      double perSecond = (completed.get() - startCount) / (double) measure.toSeconds();
      // let the instances in flight finish, so that a node paused next holds no activated job
      window.tryAcquire(inFlight, DRAIN.toMillis(), TimeUnit.MILLISECONDS);
      return perSecond;
    }
  }
}
