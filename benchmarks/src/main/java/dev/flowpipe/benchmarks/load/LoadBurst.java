package dev.flowpipe.benchmarks.load;

import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A short, bounded load against a node on loopback: deploys a one-service-task process, starts instances at a fixed
 * rate for a fixed time with a job worker completing them, and prints what it did. Arguments: gateway port, rate
 * (instances per second), duration in seconds.
 */
public class LoadBurst {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    int rate = Integer.parseInt(args[1]);
    int seconds = Integer.parseInt(args[2]);
    try (ZeebeClient client = ZeebeClient.newClientBuilder()
        .grpcAddress(URI.create("http://127.0.0.1:" + port)).usePlaintext().build()) {
      client.newDeployResourceCommand()
          .addProcessModel(Bpmn.createExecutableProcess("burst").startEvent()
              .serviceTask("work", t -> t.zeebeJobType("burst-work")).endEvent().done(), "burst.bpmn")
          .send().join();
      AtomicLong completed = new AtomicLong();
      var worker = client.newWorker().jobType("burst-work")
          .handler((jobs, job) -> { jobs.newCompleteCommand(job.getKey()).send().join(); completed.incrementAndGet(); })
          .maxJobsActive(64).pollInterval(Duration.ofMillis(20)).open();
      long created = 0;
      long start = System.nanoTime();
      long end = start + Duration.ofSeconds(seconds).toNanos();
      while (System.nanoTime() < end) {
        long due = (System.nanoTime() - start) * rate / 1_000_000_000L;
        while (created < due) {
          client.newCreateInstanceCommand().bpmnProcessId("burst").latestVersion().send();
          created++;
        }
        Thread.sleep(5);
      }
      long drainEnd = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (completed.get() < created && System.nanoTime() < drainEnd) {
        Thread.sleep(50);
      }
      worker.close();
      System.out.printf("created=%d completed=%d in %ds at %d PI/s%n", created, completed.get(), seconds, rate);
    }
  }
}
