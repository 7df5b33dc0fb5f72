package dev.flowpipe.systemtests;

import dev.flowpipe.systemtests.ClientOracle.Outcome;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.CommandOutcome;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.ZeebeFuture;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.client.api.worker.JobClient;
import io.camunda.zeebe.client.api.worker.JobWorker;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import io.grpc.Status;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The crash suite's mixed load through the official client, meant to go on while the node is killed and restarted:
 * instances of three models (an order with a call activity, a timer and two service tasks; the called process; a parked
 * instance whose job no worker takes) started with a variable, variables written again (a few bytes to 100 KB),
 * cancellations, and job workers that complete jobs with variables, fail some with retries left, and fail some with
 * none, raising incidents that a resolver resolves (retries updated, incident resolved; it finds the incident's key in
 * the read model, as a user would) or leaves open. Every answer goes to the {@link ClientOracle}; nothing is retried:
 * a command without an answer stays unknown, and backpressure ({@code RESOURCE_EXHAUSTED}) is a refusal like any
 * other. After each restart {@link #connect()} gives everything a new client, so no channel waits out a reconnect
 * back-off.
 */
public final class CrashLoad implements AutoCloseable {

  static final String ORDER = "crash-order";
  static final String CHILD = "crash-child";
  static final String PARKED = "crash-parked";
  private static final String PREPARE = "crash-prepare";
  private static final String CHILD_WORK = "crash-child-work";
  private static final String SHIP = "crash-ship";
  /** An activated job whose worker's answer was lost is activated again after this. */
  static final Duration JOB_TIMEOUT = Duration.ofSeconds(4);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  private static final int MAX_IN_FLIGHT = 200;
  private static final int RECENT = 300;

  /**
   * How much load.
   *
   * @param instancesPerSecond instances started (70% orders, 30% parked)
   * @param variableWritesPerSecond variables written by the client on running instances
   * @param cancellationsPerSecond instances cancelled
   */
  public record Rates(double instancesPerSecond, double variableWritesPerSecond, double cancellationsPerSecond) {}

  /**
   * Another way to cancel an instance than the client's gRPC command, e.g. an operation through a server's HTTP API;
   * the future ends with the outcome as the caller read it (never exceptionally: no answer is {@link
   * Outcome#UNKNOWN}).
   */
  public interface Canceller {
    /** What the load's report calls these commands. */
    String kind();

    java.util.concurrent.CompletableFuture<Answered> cancel(long processInstanceKey);

    /** An outcome and a short name of what went wrong (null: nothing). */
    record Answered(Outcome outcome, String error) {}
  }

  private URI gateway;
  private final SearchStore store;
  private final String indexPrefix;
  private final Rates rates;
  private final ClientOracle oracle;
  private final Random random;
  private final VariableValues values;
  private final AtomicReference<ZeebeClient> client = new AtomicReference<>();
  private final List<JobWorker> workers = new ArrayList<>();
  private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(4,
      Thread.ofPlatform().daemon().name("crash-load-", 0).factory());
  // starting, writing and cancelling, stopped first; the resolver goes on with the workers until the load finishes
  private final List<ScheduledFuture<?>> clientActions = new ArrayList<>();
  private ScheduledFuture<?> resolver;
  private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
  private final AtomicLong orders = new AtomicLong();
  private final Set<Long> jobsSeen = ConcurrentHashMap.newKeySet();
  private final Set<String> writesInFlight = ConcurrentHashMap.newKeySet();
  private final Set<Long> cancelSent = ConcurrentHashMap.newKeySet();
  // instances to write variables to and cancel: recent orders, and parked ones (they stay active until cancelled)
  private final Deque<Long> recentOrders = new ArrayDeque<>();
  private final List<Long> parked = new ArrayList<>();
  private final AtomicLong heldBack = new AtomicLong();
  private volatile long lastJobActivityNanos = System.nanoTime();
  // every other cancellation goes this way when set
  private volatile Canceller otherCanceller;
  private final AtomicLong cancellations = new AtomicLong();

  public CrashLoad(URI gateway, SearchStore store, String indexPrefix, Rates rates, long seed, ClientOracle oracle) {
    this.gateway = gateway;
    this.store = store;
    this.indexPrefix = indexPrefix;
    this.rates = rates;
    this.oracle = oracle;
    this.random = new Random(seed);
    this.values = new VariableValues(new Random(seed ^ 0x5DEECE66DL));
  }

  public static List<BpmnModelInstance> models() {
    return List.of(
        Bpmn.createExecutableProcess(ORDER).startEvent()
            .serviceTask("prepare", t -> t.zeebeJobType(PREPARE))
            // the child gets a copy of every variable; nothing comes back, so the order's variables are the client's
            .callActivity("call", c -> c.zeebeProcessId(CHILD).zeebePropagateAllChildVariables(false))
            .intermediateCatchEvent("wait", e -> e.timerWithDuration("PT0.2S"))
            .serviceTask("ship", t -> t.zeebeJobType(SHIP))
            .endEvent().done(),
        Bpmn.createExecutableProcess(CHILD).startEvent()
            .serviceTask("child-work", t -> t.zeebeJobType(CHILD_WORK)).endEvent().done(),
        Bpmn.createExecutableProcess(PARKED).startEvent()
            .serviceTask("parked", t -> t.zeebeJobType("crash-nobody")).endEvent().done());
  }

  /** From now on, every other cancellation goes through {@code canceller} instead of the client. */
  public CrashLoad cancelAlsoThrough(Canceller canceller) {
    this.otherCanceller = canceller;
    return this;
  }

  /** As {@link #connect()}, through another gateway from now on (a cluster's client whose gateway node was killed). */
  public synchronized void connect(URI otherGateway) {
    gateway = otherGateway;
    connect();
  }

  /** A new client and new workers, after the node (re)started; the old ones are closed. */
  public synchronized void connect() {
    workers.forEach(JobWorker::close);
    workers.clear();
    ZeebeClient next = ZeebeClient.newClientBuilder().grpcAddress(gateway).usePlaintext()
        // a command the node did not answer is not sent again behind our back
        .useDefaultRetryPolicy(false)
        .defaultRequestTimeout(REQUEST_TIMEOUT)
        .numJobWorkerExecutionThreads(3)
        .build();
    ZeebeClient previous = client.getAndSet(next);
    if (previous != null) {
      previous.close();
    }
    for (String type : List.of(PREPARE, CHILD_WORK, SHIP)) {
      workers.add(next.newWorker().jobType(type).handler(this::work).timeout(JOB_TIMEOUT)
          .pollInterval(Duration.ofMillis(100)).maxJobsActive(16).fetchVariables("orderId").streamEnabled(false)
          .open());
    }
  }

  /** Deploys the models; the gateway may not know the partitions' leaders for a moment after the node is ready. */
  public void deploy() throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      var command = client.get().newDeployResourceCommand().addProcessModel(models().get(0), ORDER + ".bpmn")
          .addProcessModel(models().get(1), CHILD + ".bpmn").addProcessModel(models().get(2), PARKED + ".bpmn");
      try {
        command.send().join();
        return;
      } catch (RuntimeException e) {
        if (CommandOutcome.statusCode(e) != Status.Code.UNAVAILABLE || attempt >= 100) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  /** Connects, deploys the models and starts the load. */
  public void begin() throws InterruptedException {
    connect();
    deploy();
    start();
  }

  /** Starts instances, variable writes, cancellations and incident resolution at their rates. */
  public synchronized void start() {
    clientActions.add(every(rates.instancesPerSecond(), this::startInstance));
    clientActions.add(every(rates.variableWritesPerSecond(), this::writeVariable));
    clientActions.add(every(rates.cancellationsPerSecond(), this::cancelInstance));
    resolver = scheduler.scheduleWithFixedDelay(this::resolveIncidents, 500, 500, TimeUnit.MILLISECONDS);
  }

  private ScheduledFuture<?> every(double perSecond, Runnable action) {
    long periodMicros = Math.round(1e6 / perSecond);
    return scheduler.scheduleAtFixedRate(action, periodMicros, periodMicros, TimeUnit.MICROSECONDS);
  }

  /**
   * Stops starting, writing and cancelling and waits for those commands' answers; the workers and the resolver go on,
   * until the workers have had nothing to do for {@code quiet} (longer than the job timeout, so a job whose worker's
   * answer was lost has come back and been done) and no incident waits to be resolved, or until {@code atMost}.
   * Returns whether it got that quiet.
   */
  public boolean finish(Duration quiet, Duration atMost) throws InterruptedException {
    synchronized (this) {
      clientActions.forEach(action -> action.cancel(false));
    }
    if (!inFlight.tryAcquire(MAX_IN_FLIGHT, REQUEST_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS)) {
      throw new IllegalStateException("commands still without an answer " + REQUEST_TIMEOUT.plusSeconds(5)
          + " after the load stopped");
    }
    inFlight.release(MAX_IN_FLIGHT);
    long deadline = System.nanoTime() + atMost.toNanos();
    while (System.nanoTime() < deadline) {
      if (System.nanoTime() - lastJobActivityNanos > quiet.toNanos() && oracle.incidentsToResolve(0).isEmpty()) {
        return true;
      }
      Thread.sleep(200);
    }
    return false;
  }

  /**
   * Ends the load as a crash run does: {@link #finish} until the workers have been quiet for longer than the job
   * timeout (at most 90 s), then closes it, saying on {@code progress} how it ended.
   */
  public void finishAndClose(java.util.function.Consumer<String> progress) throws InterruptedException {
    progress.accept("load finishing: no new commands; workers and incident resolution until quiet");
    boolean quiet = finish(JOB_TIMEOUT.plusSeconds(2), Duration.ofSeconds(90));
    close();
    progress.accept("load finished" + (quiet ? "" : " (not quiet after 90 s: " + pendingWork() + ")"));
  }

  /** What kept {@link #finish} from being quiet. */
  public String pendingWork() {
    return String.format(java.util.Locale.ROOT, "last job handled %.1f s ago, incidents waiting to be resolved: %s",
        (System.nanoTime() - lastJobActivityNanos) / 1e9, oracle.incidentsToResolve(0));
  }

  public long heldBack() {
    return heldBack.get();
  }

  private void startInstance() {
    String processId = random.nextDouble() < 0.7 ? ORDER : PARKED;
    String orderId = "order-" + orders.incrementAndGet();
    String value = values.next("c0");
    send("create " + processId, c -> c.newCreateInstanceCommand().bpmnProcessId(processId).latestVersion()
        .variables(Map.of("orderId", orderId, "c0", value)).send(), (created, outcome, sent) -> {
          if (outcome == Outcome.CONFIRMED) {
            long key = created.getProcessInstanceKey();
            oracle.created(key, processId, orderId);
            oracle.variableWritten(key, "orderId", orderId, sent, outcome);
            oracle.variableWritten(key, "c0", value, sent, outcome);
            synchronized (this) {
              if (processId.equals(PARKED)) {
                parked.add(key);
              } else {
                recentOrders.addLast(key);
                if (recentOrders.size() > RECENT) {
                  recentOrders.removeFirst();
                }
              }
            }
          }
        });
  }

  private void writeVariable() {
    Long key = pickInstance(0.5);
    if (key == null) {
      return;
    }
    String name = "c" + random.nextInt(3);
    String slot = key + "/" + name;
    if (!writesInFlight.add(slot)) {
      return; // one write at a time per variable, so their order is the order of their answers
    }
    String value = values.next(name);
    boolean sent = send("set variables", c -> c.newSetVariablesCommand(key).variables(Map.of(name, value)).send(),
        (response, outcome, sentNanos) -> {
          oracle.variableWritten(key, name, value, sentNanos, outcome);
          writesInFlight.remove(slot);
        });
    if (!sent) {
      writesInFlight.remove(slot);
    }
  }

  private void cancelInstance() {
    Long key = pickInstance(0.6);
    if (key == null || !cancelSent.add(key)) {
      return;
    }
    synchronized (this) {
      parked.remove(key);
      recentOrders.remove(key);
    }
    Canceller other = otherCanceller;
    if (other != null && cancellations.incrementAndGet() % 2 == 0) {
      cancelThrough(other, key);
      return;
    }
    send("cancel", c -> c.newCancelInstanceCommand(key).send(),
        (response, outcome, sent) -> oracle.cancelled(key, outcome));
  }

  private void cancelThrough(Canceller canceller, long key) {
    if (!inFlight.tryAcquire()) {
      heldBack.incrementAndGet();
      return;
    }
    java.util.concurrent.CompletableFuture<Canceller.Answered> answer;
    try {
      answer = canceller.cancel(key);
    } catch (RuntimeException e) {
      answer = java.util.concurrent.CompletableFuture.completedFuture(
          new Canceller.Answered(Outcome.UNKNOWN, e.getClass().getSimpleName()));
    }
    answer.whenComplete((answered, error) -> {
      try {
        Canceller.Answered result = error == null ? answered
            : new Canceller.Answered(Outcome.UNKNOWN, error.getClass().getSimpleName());
        oracle.cancelled(key, oracle.answered(canceller.kind(), result.outcome(), result.error()));
      } finally {
        inFlight.release();
      }
    });
  }

  /** A parked instance with probability {@code parkedShare}, else a recent order; null if there is none yet. */
  private synchronized Long pickInstance(double parkedShare) {
    boolean fromParked = !parked.isEmpty() && (recentOrders.isEmpty() || random.nextDouble() < parkedShare);
    if (fromParked) {
      return parked.get(random.nextInt(parked.size()));
    }
    if (recentOrders.isEmpty()) {
      return null;
    }
    return new ArrayList<>(recentOrders).get(random.nextInt(recentOrders.size()));
  }

  /** What to do with an answer: the response (null unless confirmed), its outcome, and when the command was sent. */
  @FunctionalInterface
  private interface Answer<T> {
    void accept(T response, Outcome outcome, long sentNanos);
  }

  /** Sends a command without waiting; false if too many are in flight (the load is held back, not queued). */
  private <T> boolean send(String kind, Function<ZeebeClient, ZeebeFuture<T>> command, Answer<T> answer) {
    if (!inFlight.tryAcquire()) {
      heldBack.incrementAndGet();
      return false;
    }
    long sent = System.nanoTime();
    try {
      command.apply(client.get()).whenComplete((response, error) -> {
        try {
          answer.accept(error == null ? response : null, oracle.answered(kind, error), sent);
        } finally {
          inFlight.release();
        }
      });
    } catch (RuntimeException e) { // a client closed under us by connect()
      try {
        answer.accept(null, oracle.answered(kind, e), sent);
      } finally {
        inFlight.release();
      }
    }
    return true;
  }

  /** Sends a command from a worker or the resolver and waits for its answer. */
  private <T> Outcome sendAndWait(String kind, Function<ZeebeClient, ZeebeFuture<T>> command) {
    try {
      command.apply(client.get()).join();
      return oracle.answered(kind, null);
    } catch (RuntimeException e) {
      return oracle.answered(kind, e);
    }
  }

  private void work(JobClient jobs, ActivatedJob job) {
    lastJobActivityNanos = System.nanoTime();
    boolean first = jobsSeen.add(job.getKey());
    double roll = random.nextDouble();
    long instance = job.getProcessInstanceKey();
    switch (job.getType()) {
      case PREPARE -> {
        if (first && roll < 0.15 && job.getRetries() > 1) {
          failWithRetriesLeft(jobs, job);
        } else {
          complete(jobs, job, "w-prepare", null);
        }
      }
      case CHILD_WORK -> {
        oracle.calledInstanceSeen(instance, CHILD, String.valueOf(job.getVariablesAsMap().get("orderId")));
        complete(jobs, job, "w-child", oracle::lastJobCompleted);
      }
      case SHIP -> {
        if (first && roll < 0.2) {
          String message = "crash suite: job " + job.getKey() + " failed with no retries left";
          Outcome failed = sendAndWait("fail job, no retries",
              c -> jobs.newFailCommand(job.getKey()).retries(0).errorMessage(message).send());
          if (failed == Outcome.CONFIRMED) {
            oracle.incidentRaised(job.getKey(), instance, message, random.nextDouble() < 0.25);
          }
        } else if (first && roll < 0.35 && job.getRetries() > 1) {
          failWithRetriesLeft(jobs, job);
        } else {
          complete(jobs, job, "w-ship", oracle::lastJobCompleted);
        }
      }
      default -> throw new IllegalStateException("no worker for " + job.getType());
    }
    lastJobActivityNanos = System.nanoTime();
  }

  private void failWithRetriesLeft(JobClient jobs, ActivatedJob job) {
    sendAndWait("fail job, retries left", c -> jobs.newFailCommand(job.getKey()).retries(job.getRetries() - 1)
        .retryBackoff(Duration.ZERO).errorMessage("crash suite: try again").send());
  }

  /** Completes the job with a new value of {@code variable}; {@code lastJob} learns the outcome if the job is one. */
  private void complete(JobClient jobs, ActivatedJob job, String variable, BiConsumer<Long, Outcome> lastJob) {
    String value = values.next(variable);
    long sent = System.nanoTime();
    Outcome outcome = sendAndWait("complete " + job.getType(),
        c -> jobs.newCompleteCommand(job.getKey()).variables(Map.of(variable, value)).send());
    // no output mappings: the variable goes to the instance's own scope
    oracle.variableWritten(job.getProcessInstanceKey(), variable, value, sent, outcome);
    if (lastJob != null) {
      lastJob.accept(job.getProcessInstanceKey(), outcome);
    }
  }

  /** Resolves the open incidents meant to be resolved: retries first, else resolving would raise a new incident. */
  private void resolveIncidents() {
    try {
      for (long jobKey : oracle.incidentsToResolve(TimeUnit.MILLISECONDS.toNanos(500))) {
        List<Map<String, Object>> incidents = store.findByField(ReadModelIndex.INCIDENT.indexName(indexPrefix),
            "jobKey", jobKey, 10);
        Long incidentKey = openIncident(incidents);
        if (incidentKey == null) {
          if (!incidents.isEmpty()) {
            oracle.giveUpResolving(jobKey); // resolved already: its instance was cancelled
          }
          continue; // else not in the read model yet
        }
        Outcome retries = sendAndWait("update retries", c -> c.newUpdateRetriesCommand(jobKey).retries(1).send());
        if (retries == Outcome.REFUSED) {
          oracle.giveUpResolving(jobKey); // the job is gone: its instance was cancelled
        } else if (retries == Outcome.CONFIRMED) {
          oracle.resolved(jobKey, incidentKey,
              sendAndWait("resolve incident", c -> c.newResolveIncidentCommand(incidentKey).send()));
        }
      }
    } catch (RuntimeException e) {
      // the store is down with the node: next round
    }
  }

  /** The key of the open one of a job's incidents, or null if none is open. */
  private static Long openIncident(List<Map<String, Object>> incidents) {
    for (Map<String, Object> incident : incidents) {
      if ("ACTIVE".equals(incident.get("state")) && incident.get("key") instanceof Number key) {
        return key.longValue();
      }
    }
    return null;
  }

  @Override
  public synchronized void close() {
    clientActions.forEach(action -> action.cancel(false));
    if (resolver != null) {
      resolver.cancel(false);
    }
    scheduler.shutdownNow();
    workers.forEach(JobWorker::close);
    workers.clear();
    ZeebeClient last = client.getAndSet(null);
    if (last != null) {
      last.close();
    }
  }

  /**
   * Variable values: a head naming the variable and a sequence number, so that no two writes are alike, padded with
   * letters to a length drawn log-uniformly from 8 bytes to 100 KB (about one in six above 16 KB).
   */
  public static final class VariableValues {
    static final int MAX_LENGTH = 100 * 1024;
    private static final int MIN_LENGTH = 8;
    private final Random random;
    private final String letters;
    private long sequence;

    VariableValues(Random random) {
      this.random = random;
      StringBuilder text = new StringBuilder(2 * MAX_LENGTH);
      for (int i = 0; i < 2 * MAX_LENGTH; i++) {
        text.append((char) ('a' + random.nextInt(26)));
      }
      letters = text.toString();
    }

    synchronized String next(String name) {
      int length = (int) Math.round(Math.exp(Math.log(MIN_LENGTH)
          + random.nextDouble() * (Math.log(MAX_LENGTH) - Math.log(MIN_LENGTH))));
      String head = name + "#" + ++sequence + ":";
      if (length <= head.length()) {
        return head;
      }
      int from = random.nextInt(MAX_LENGTH);
      return head + letters.substring(from, from + length - head.length());
    }
  }
}
