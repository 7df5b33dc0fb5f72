package dev.flowpipe.benchmarks.load;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.command.ClientStatusException;
import io.grpc.Status;
import io.camunda.zeebe.client.api.worker.JobWorker;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Data availability: the time from an instance completing in the engine (its end date, the engine's timestamp) to the
 * moment a search of the store (not a real-time get: what a UI would see) returns it as COMPLETED. Probes are
 * one-after-another instances of a start-to-end process, under a background load at a fixed rate.
 */
public final class Availability {

  public static final String PROBE = "probe";

  private Availability() {}

  /**
   * @param warmUp how long the background load runs before the first probe (at least 2 s): a fresh node's store is
   *     still compiling for its first minutes, and a long-running node is not
   */
  public static Histogram run(ZeebeClient client, SearchStore store, String indexPrefix, int backgroundRate, int probes,
      Duration warmUp) throws InterruptedException {
    Histogram latencies = new Histogram(TimeUnit.MINUTES.toMillis(5), 3);
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(indexPrefix);
    Thread background = Thread.ofPlatform().daemon().start(() -> backgroundLoad(client, backgroundRate));
    try (JobWorker worker = client.newWorker().jobType(Saturation.JOB_TYPE)
        .handler((jobs, job) -> jobs.newCompleteCommand(job.getKey()).send())
        .maxJobsActive(256).pollInterval(Duration.ofMillis(10)).streamEnabled(true).open()) {
      Thread.sleep(Math.max(2_000, warmUp.toMillis()));
      for (int i = 0; i < probes; i++) {
        long key = createProbe(client);
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
          var found = store.findByField(index, "key", key, 1);
          if (!found.isEmpty() && "COMPLETED".equals(found.getFirst().get("state"))) {
            long visibleAt = System.currentTimeMillis();
            long endedAt = Instant.parse((String) found.getFirst().get("endDate")).toEpochMilli();
            latencies.recordValue(Math.max(0, visibleAt - endedAt));
            break;
          }
          Thread.sleep(10); // the polling itself must not load the store: 10 ms granularity
        }
        Thread.sleep(20);
      }
    } finally {
      background.interrupt();
    }
    return latencies;
  }

  /**
   * Starts a probe instance and waits for its result; retries when the broker applies backpressure, for up to about
   * 10 s (a fresh node's flow control can reject for a second or more while its first bulks warm the store up).
   */
  public static long createProbe(ZeebeClient client) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return client.newCreateInstanceCommand().bpmnProcessId(PROBE).latestVersion().withResult().send().join()
            .getProcessInstanceKey();
      } catch (ClientStatusException e) {
        if (e.getStatusCode() != Status.Code.RESOURCE_EXHAUSTED || attempt >= 500) {
          throw e;
        }
        Thread.sleep(20);
      }
    }
  }

  public static void backgroundLoad(ZeebeClient client, int rate) {
    long start = System.nanoTime();
    long created = 0;
    while (!Thread.currentThread().isInterrupted()) {
      long due = (System.nanoTime() - start) * rate / 1_000_000_000L;
      while (created < due) {
        client.newCreateInstanceCommand().bpmnProcessId(Saturation.PROCESS).latestVersion().send();
        created++;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        return;
      }
    }
  }
}
