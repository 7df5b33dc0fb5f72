package dev.flowpipe.benchmarks.load;

import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.worker.JobClient;
import io.camunda.zeebe.client.api.worker.JobWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import dev.flowpipe.testsupport.CommandOutcome;
import dev.flowpipe.benchmarks.prometheus.ExporterLag;

/**
 * Load through the official Zeebe client: a starter that creates process instances at a fixed rate (open loop: the
 * n-th is due n / rate seconds after the start, whatever happened to the earlier ones; at most {@code maxInFlight} in
 * flight, a start due beyond that is not sent and counted as held back), and one job worker per job type of the model
 * that completes each job after the configured delay.
 *
 * <p>Process execution latency: each instance is created with a result ({@code CreateProcessInstanceWithResult}); the
 * gateway answers when the instance has completed. The latency is the client's time from sending the create command
 * to receiving that answer: created to completed as the client sees it, including both gRPC hops, queueing in the
 * gateway and the broker, and the workers' delays. It is measured on one clock (the client's monotonic clock), so no
 * clock skew enters it. Rejected creates (RESOURCE_EXHAUSTED) are not retried: they are the backpressure probe.
 * Rejected job completions are retried by the worker after 50 ms, each attempt counted.
 */
public final class LoadGenerator {

  /** How long a create-with-result may wait for its instance to complete. */
  public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final long HIGHEST_MILLIS = TimeUnit.MINUTES.toMillis(5);
  private static final int COMPLETE_ATTEMPTS = 100;

  private final ZeebeClient client;
  private final LoadSettings settings;
  private final LoadModel model;
  private final ExporterLag.Reader lag;
  private final Consumer<String> progress;
  private final int progressEverySeconds;
  private final Map<String, String> errorSamples = new ConcurrentHashMap<>();

  /**
   * @param lag reads the exporter's lag once a second; null when the node's HTTP address is unknown
   * @param progress receives a progress line every {@code progressEverySeconds}; 0 for none
   */
  public LoadGenerator(ZeebeClient client, LoadSettings settings, LoadModel model, ExporterLag.Reader lag,
      Consumer<String> progress, int progressEverySeconds) {
    this.client = client;
    this.settings = settings;
    this.model = model;
    this.lag = lag;
    this.progress = progress;
    this.progressEverySeconds = progressEverySeconds;
  }

  public LoadResult run() throws InterruptedException {
    int loadSeconds = (int) Math.ceil(settings.duration().toMillis() / 1000.0);
    Windows windows = new Windows(loadSeconds + (int) REQUEST_TIMEOUT.toSeconds() + 10);
    Histogram latency = new Histogram(HIGHEST_MILLIS, 3);
    Map<String, Long> errorKinds = new ConcurrentHashMap<>();
    Semaphore inFlight = new Semaphore(settings.maxInFlight());
    Map<String, Object> variables = settings.payloadBytes() == 0 ? Map.of()
        : Map.of("payload", "x".repeat(settings.payloadBytes()));
    ScheduledExecutorService delayed = Executors.newScheduledThreadPool(2, Thread.ofPlatform().daemon()
        .name("load-worker-delay-", 0).factory());
    List<JobWorker> workers = new ArrayList<>();
    Thread sampler = null;
    try {
      for (String type : model.jobTypes()) {
        workers.add(client.newWorker().jobType(type)
            .handler((jobs, job) -> {
              if (settings.workerDelay().isZero()) {
                complete(jobs, job.getKey(), 1, windows, delayed, errorKinds);
              } else {
                try {
                  delayed.schedule(() -> complete(jobs, job.getKey(), 1, windows, delayed, errorKinds),
                      settings.workerDelay().toNanos(), TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException runIsOver) {
                  // the job times out and goes to the next run's worker
                }
              }
            })
            .maxJobsActive(Math.max(32, Math.min(settings.maxInFlight(), 2_000)))
            .timeout(Duration.ofMinutes(1))
            .pollInterval(Duration.ofMillis(100))
            .streamEnabled(true)
            .open());
      }
      long start = System.nanoTime();
      windows.start = start;
      long end = start + settings.duration().toNanos();
      sampler = Thread.ofPlatform().daemon().name("load-sampler").start(() -> sample(windows, loadSeconds));
      double intervalNanos = 1e9 / settings.ratePerSecond();
      for (long n = 0; ; n++) {
        long due = start + (long) (n * intervalNanos);
        if (due >= end) {
          break;
        }
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
          LockSupport.parkNanos(wait); // may return early: park again until the start is due
          if (Thread.interrupted()) {
            throw new InterruptedException();
          }
        }
        if (!inFlight.tryAcquire()) {
          windows.heldBack.incrementAndGet(windows.index(due));
          continue;
        }
        startInstance(due, variables, windows, latency, errorKinds, inFlight);
      }
      // let every instance in flight finish (or its request time out) so all of them are counted
      boolean drained = inFlight.tryAcquire(settings.maxInFlight(), REQUEST_TIMEOUT.plusSeconds(5).toMillis(),
          TimeUnit.MILLISECONDS);
      long stillInFlight = drained ? 0 : settings.maxInFlight() - inFlight.availablePermits();
      int lastWindow = Math.max(loadSeconds, windows.index(System.nanoTime()) + 1);
      sampler.interrupt();
      sampler.join(2_000);
      synchronized (latency) {
        return new LoadResult(settings, model.processId(), windows.toList(lastWindow), loadSeconds, latency.copy(),
            Map.copyOf(errorKinds), Map.copyOf(errorSamples), stillInFlight);
      }
    } finally {
      if (sampler != null) {
        sampler.interrupt();
      }
      workers.forEach(JobWorker::close);
      delayed.shutdownNow();
    }
  }

  /**
   * Sends one create; the attempt and its outcome count in the second the start was due (on a busy client the send
   * can be a little late), the latency runs from the actual send.
   */
  private void startInstance(long due, Map<String, Object> variables, Windows windows, Histogram latency,
      Map<String, Long> errorKinds, Semaphore inFlight) {
    long sentAt = System.nanoTime();
    int sentIn = windows.index(due);
    windows.createAttempts.incrementAndGet(sentIn);
    try {
      var command = client.newCreateInstanceCommand().bpmnProcessId(model.processId()).latestVersion();
      if (!variables.isEmpty()) {
        command = command.variables(variables);
      }
      command.withResult()
          // the answer carries the instance's variables; ask for one that does not exist so the payload is not
          // sent back with every completion
          .fetchVariables("loadGeneratorFetchesNoVariables")
          .requestTimeout(REQUEST_TIMEOUT)
          .send()
          .whenComplete((result, error) -> {
            long now = System.nanoTime();
            try {
              switch (CommandOutcome.of(error)) {
                case ACCEPTED -> {
                  int completedIn = windows.index(now);
                  windows.created.incrementAndGet(sentIn);
                  windows.completed.incrementAndGet(completedIn);
                  long millis = Math.min(HIGHEST_MILLIS, TimeUnit.NANOSECONDS.toMillis(now - sentAt));
                  windows.recordLatency(completedIn, millis);
                  synchronized (latency) {
                    latency.recordValue(millis);
                  }
                }
                case REJECTED -> windows.createRejected.incrementAndGet(sentIn);
                case TIMED_OUT -> windows.createTimedOut.incrementAndGet(sentIn);
                case FAILED -> {
                  windows.errors.incrementAndGet(sentIn);
                  countError(errorKinds, "create ", error);
                }
              }
            } finally {
              inFlight.release();
            }
          });
    } catch (RuntimeException e) {
      windows.errors.incrementAndGet(sentIn);
      countError(errorKinds, "create ", e);
      inFlight.release();
    }
  }

  private void complete(JobClient jobs, long jobKey, int attempt, Windows windows, ScheduledExecutorService delayed,
      Map<String, Long> errorKinds) {
    int sentIn = windows.index(System.nanoTime());
    windows.completeAttempts.incrementAndGet(sentIn);
    jobs.newCompleteCommand(jobKey).send().whenComplete((ok, error) -> {
      switch (CommandOutcome.of(error)) {
        case ACCEPTED -> { }
        case REJECTED -> {
          windows.completeRejected.incrementAndGet(sentIn);
          if (attempt < COMPLETE_ATTEMPTS && !delayed.isShutdown()) {
            try {
              delayed.schedule(() -> complete(jobs, jobKey, attempt + 1, windows, delayed, errorKinds), 50,
                  TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException runIsOver) {
              // the job times out and goes to the next run's worker
            }
          }
        }
        default -> {
          windows.errors.incrementAndGet(sentIn);
          countError(errorKinds, "complete job ", error);
        }
      }
    });
  }

  /** Counts an error by command and kind, and keeps the first message of each kind for the report. */
  private void countError(Map<String, Long> errorKinds, String command, Throwable error) {
    String kind = command + CommandOutcome.kind(error);
    errorKinds.merge(kind, 1L, Long::sum);
    String message = String.valueOf(error.getMessage());
    errorSamples.putIfAbsent(kind, message.length() > 300 ? message.substring(0, 300) : message);
  }

  /** Once a second: the exporter's lag into the window just ended, and a progress line now and then. */
  private void sample(Windows windows, int loadSeconds) {
    for (int second = 1; ; second++) {
      long wake = windows.start + second * 1_000_000_000L;
      long wait = wake - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
      int window = second - 1;
      if (window >= windows.capacity) {
        return;
      }
      if (lag != null) {
        ExporterLag now = lag.read();
        if (now != null) {
          windows.lagAge.set(window, now.ageMillis());
          windows.lagRecords.set(window, now.records());
        }
      }
      if (progressEverySeconds > 0 && second % progressEverySeconds == 0) {
        progress.accept(windows.progressLine(window, loadSeconds, settings.ratePerSecond()));
      }
    }
  }

  /** Per-second counters, written from the client's threads. */
  private static final class Windows {
    final int capacity;
    volatile long start;
    final AtomicLongArray createAttempts;
    final AtomicLongArray created;
    final AtomicLongArray createRejected;
    final AtomicLongArray createTimedOut;
    final AtomicLongArray heldBack;
    final AtomicLongArray completed;
    final AtomicLongArray completeAttempts;
    final AtomicLongArray completeRejected;
    final AtomicLongArray errors;
    final AtomicLongArray lagAge;
    final AtomicLongArray lagRecords;
    final Histogram[] latency;

    public Windows(int capacity) {
      this.capacity = capacity;
      createAttempts = new AtomicLongArray(capacity);
      created = new AtomicLongArray(capacity);
      createRejected = new AtomicLongArray(capacity);
      createTimedOut = new AtomicLongArray(capacity);
      heldBack = new AtomicLongArray(capacity);
      completed = new AtomicLongArray(capacity);
      completeAttempts = new AtomicLongArray(capacity);
      completeRejected = new AtomicLongArray(capacity);
      errors = new AtomicLongArray(capacity);
      lagAge = new AtomicLongArray(capacity);
      lagRecords = new AtomicLongArray(capacity);
      latency = new Histogram[capacity];
      for (int i = 0; i < capacity; i++) {
        lagAge.set(i, -1);
        lagRecords.set(i, -1);
        latency[i] = new Histogram(HIGHEST_MILLIS, 3);
      }
    }

    public int index(long nanos) {
      return (int) Math.max(0, Math.min(capacity - 1, (nanos - start) / 1_000_000_000L));
    }

    public void recordLatency(int window, long millis) {
      synchronized (latency[window]) {
        latency[window].recordValue(millis);
      }
    }

    public LoadWindow window(int i) {
      Histogram h;
      synchronized (latency[i]) {
        h = latency[i].copy();
      }
      boolean any = h.getTotalCount() > 0;
      return new LoadWindow(i, createAttempts.get(i), created.get(i), createRejected.get(i), createTimedOut.get(i),
          heldBack.get(i), completed.get(i), completeAttempts.get(i), completeRejected.get(i), errors.get(i),
          any ? h.getValueAtPercentile(50) : -1, any ? h.getValueAtPercentile(90) : -1,
          any ? h.getValueAtPercentile(99) : -1, any ? h.getMaxValue() : -1, lagAge.get(i), lagRecords.get(i));
    }

    public List<LoadWindow> toList(int windows) {
      List<LoadWindow> list = new ArrayList<>();
      for (int i = 0; i < Math.min(windows, capacity); i++) {
        list.add(window(i));
      }
      return list;
    }

    public String progressLine(int i, int loadSeconds, double rate) {
      LoadWindow w = window(i);
      return String.format(Locale.ROOT,
          "  [%3d/%d s] offered %.0f/s: sent %d, completed %d, rejected %.1f%%, held back %d, latency p50 %s p99 %s"
              + " ms, exporter lag %s ms / %s records",
          i + 1, loadSeconds, rate, w.createAttempts(), w.completed(), 100 * w.rejectedShare(), w.heldBack(),
          w.latencyP50() < 0 ? "-" : w.latencyP50(), w.latencyP99() < 0 ? "-" : w.latencyP99(),
          w.lagAgeMillis() < 0 ? "-" : w.lagAgeMillis(), w.lagRecords() < 0 ? "-" : w.lagRecords());
    }
  }
}
