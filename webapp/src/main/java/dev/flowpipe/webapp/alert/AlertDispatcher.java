package dev.flowpipe.webapp.alert;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Duration;
import dev.flowpipe.schema.store.DocumentWrite;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the alerts the writer armed (issue 36, ADR 0021), from the web app of any node or server: each round it turns
 * new alerts into one delivery per endpoint, then claims the deliveries that are due and POSTs them, signed. It never
 * touches the exporter: an endpoint that is down or slow delays only its own deliveries (at most
 * {@code max-in-flight} POSTs each), never the read model.
 *
 * <p>Once across restarts and failovers: a delivery is claimed with a compare-and-set write before its POST, so two
 * processes never both send it; it is marked after the answer (delivered on a 2xx, else retried after a doubling wait,
 * or failed after the last attempt). A graceful stop claims nothing more and waits for the POSTs in flight to be
 * marked. A process that dies between a POST and its mark leaves the claim to expire, and the delivery is sent again:
 * at least once there, with the same {@link AlertSignature#ALERT_ID_HEADER} for receivers that deduplicate.
 *
 * <p>Rounds run on one scheduler thread; POST answers are marked on {@code completions} (the same thread in the
 * product), those that came in together in one write. Each round's arming and claims are one write each too: a store
 * request per document made the alerts of a burst of incidents wait behind each other's refreshes. Time comes from
 * the injected clock only.
 */
public final class AlertDispatcher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AlertDispatcher.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** New alerts armed per round at most; the rest wait for the next round. */
  private static final int ARM_BATCH = 100;
  /** How often the stored counts behind the gauges and the health details are refreshed. */
  private static final Duration COUNT_INTERVAL = Duration.ofSeconds(5);

  private final AlertStore store;
  private final AlertProperties settings;
  private final WebhookSender sender;
  private final AlertSignature signature;
  private final AlertMetrics metrics;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final Executor completions;
  private final String owner;
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final Map<CompletableFuture<Void>, Boolean> unsettled = new ConcurrentHashMap<>();
  private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();
  private final Map<Long, Object> versions = new ConcurrentHashMap<>(); // process definition key -> version
  private volatile boolean stopping;
  private volatile ScheduledFuture<?> rounds;
  private Instant countedAt;

  AlertDispatcher(AlertStore store, AlertProperties settings, WebhookSender sender, AlertMetrics metrics, Clock clock,
      ScheduledExecutorService scheduler, Executor completions, String owner) {
    this.store = store;
    this.settings = settings;
    this.sender = sender;
    this.signature = new AlertSignature(settings.secret());
    this.metrics = metrics;
    this.clock = clock;
    this.scheduler = scheduler;
    this.completions = completions;
    this.owner = owner;
  }

  /** Starts the rounds, one every poll interval after the last ended. */
  public void start() {
    rounds = scheduler.scheduleWithFixedDelay(this::roundLogged, 0, settings.pollInterval().toMillis(),
        TimeUnit.MILLISECONDS);
    LOG.info("incident alerts on: {} endpoint(s), as {}", settings.endpoints().size(), owner);
  }

  private void roundLogged() {
    try {
      round();
    } catch (RuntimeException e) {
      // the store unreachable or refusing: nothing was lost (claims expire, new alerts stay NEW); the next round tries
      LOG.warn("alert round failed, trying again in {}: {}", settings.pollInterval(), e.toString());
    }
  }

  /** One round: arm new alerts, then claim and send what is due for each endpoint. */
  void round() {
    if (stopping) {
      return;
    }
    Instant now = clock.instant();
    armNewAlerts(now);
    for (AlertProperties.Endpoint endpoint : settings.endpoints()) {
      int free = settings.maxInFlight() - inFlight(endpoint).get();
      if (free > 0 && !stopping) {
        claimAndSend(endpoint, store.dueDeliveries(endpoint.name(), now, free), now);
      }
    }
    if (countedAt == null || !now.isBefore(countedAt.plus(COUNT_INTERVAL))) {
      countedAt = now;
      metrics.stored(store.countDeliveries(AlertStates.PENDING) + store.countDeliveries(AlertStates.SENDING),
          store.countDeliveries(AlertStates.FAILED));
    }
  }

  /**
   * Gives each new alert its deliveries (version 1 each: a second process arming the same alert is refused) and then
   * marks it armed; one that stopped in between arms it again, and its deliveries' creations are refused as done.
   */
  private void armNewAlerts(Instant now) {
    List<AlertStore.Found> alerts = store.newAlerts(ARM_BATCH);
    List<DocumentWrite> deliveries = new ArrayList<>();
    List<DocumentWrite> marks = new ArrayList<>();
    Map<DocumentWrite, Boolean> sends = new IdentityHashMap<>();
    for (AlertStore.Found alert : alerts) {
      Map<String, Object> source = alert.source();
      Instant created = Instant.parse((String) source.get("creationTime"));
      boolean sent = settings.alerts(String.valueOf(source.get("errorType")))
          && !created.isBefore(now.minus(settings.maxAge()));
      if (sent) {
        Map<String, Object> payload = payload(alert);
        for (AlertProperties.Endpoint endpoint : settings.endpoints()) {
          Map<String, Object> delivery = new LinkedHashMap<>();
          delivery.put("key", source.get("key"));
          delivery.put("processInstanceKey", source.get("processInstanceKey"));
          delivery.put("endpoint", endpoint.name());
          delivery.put("state", AlertStates.PENDING);
          delivery.put("attempts", 0);
          delivery.put("nextAttemptAt", now.toString());
          delivery.put("creationTime", source.get("creationTime"));
          delivery.put("payload", payload);
          deliveries.add(AlertStore.newDelivery(alert, endpoint.name(), delivery));
        }
      }
      Map<String, Object> armed = new LinkedHashMap<>(source);
      armed.put("state", sent ? AlertStates.ARMED : AlertStates.SKIPPED);
      DocumentWrite mark = AlertStore.replacing(alert, armed);
      marks.add(mark);
      sends.put(mark, sent);
    }
    // the deliveries first: an alert marked armed always has them (a creation refused as existing is one made before)
    store.writeAll(deliveries);
    for (DocumentWrite taken : store.writeAll(marks)) {
      metrics.armed(sends.get(taken));
    }
  }

  /** The webhook's body: what a receiver needs to act, with a link to the instance's page. */
  private Map<String, Object> payload(AlertStore.Found alert) {
    Map<String, Object> source = alert.source();
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("alertId", alert.id());
    payload.put("incidentKey", String.valueOf(source.get("key")));
    payload.put("processInstanceKey", String.valueOf(source.get("processInstanceKey")));
    payload.put("processDefinitionKey", String.valueOf(source.get("processDefinitionKey")));
    payload.put("bpmnProcessId", source.get("bpmnProcessId"));
    payload.put("processVersion", processVersion(source.get("processDefinitionKey")));
    payload.put("elementId", source.get("elementId"));
    payload.put("elementInstanceKey", String.valueOf(source.get("elementInstanceKey")));
    payload.put("errorType", source.get("errorType"));
    payload.put("errorMessage", source.get("errorMessage"));
    payload.put("creationTime", source.get("creationTime"));
    payload.put("tenantId", source.get("tenantId"));
    String base = settings.uiBaseUrl().toString().replaceAll("/+$", "");
    payload.put("link", base + "/#/instances/" + source.get("processInstanceKey"));
    return payload;
  }

  private Object processVersion(Object definitionKey) {
    if (!(definitionKey instanceof Number key)) {
      return null;
    }
    return versions.computeIfAbsent(key.longValue(), k -> store.processDefinition(k)
        .map(definition -> definition.get("version")).orElse(null));
  }

  /** Claims the due deliveries in one write, and POSTs those this process got (another may have got the rest). */
  private void claimAndSend(AlertProperties.Endpoint endpoint, List<AlertStore.Found> due, Instant now) {
    List<DocumentWrite> claims = new ArrayList<>(due.size());
    for (AlertStore.Found delivery : due) {
      Map<String, Object> claim = new LinkedHashMap<>(delivery.source());
      claim.put("state", AlertStates.SENDING);
      claim.put("claimOwner", owner);
      claim.put("claimExpiresAt", now.plus(settings.claimTimeout()).toString());
      claims.add(AlertStore.replacing(delivery, claim));
    }
    Set<DocumentWrite> taken = store.writeAll(claims);
    for (DocumentWrite claim : claims) {
      if (taken.contains(claim)) {
        send(endpoint, AlertStore.written(claim), now);
      }
    }
  }

  private void send(AlertProperties.Endpoint endpoint, AlertStore.Found claimed, Instant now) {
    Map<String, Object> claim = claimed.source();
    byte[] body;
    try {
      body = JSON.writeValueAsBytes(claim.get("payload"));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an alert's payload is plain JSON data", e);
    }
    long timestamp = now.getEpochSecond();
    Map<String, String> headers = Map.of(
        AlertSignature.ALERT_ID_HEADER, String.valueOf(claim.get("key")),
        AlertSignature.TIMESTAMP_HEADER, String.valueOf(timestamp),
        AlertSignature.SIGNATURE_HEADER, signature.sign(timestamp, body));
    inFlight(endpoint).incrementAndGet();
    CompletableFuture<Void> settled = new CompletableFuture<>();
    unsettled.put(settled, Boolean.TRUE);
    CompletableFuture<Integer> answer;
    try {
      answer = sender.post(endpoint.url(), headers, body);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete((status, error) -> {
      answers.add(new Answer(endpoint, claimed, status, error, settled));
      completions.execute(this::settleAnswers);
    });
  }

  /** A POST's outcome, waiting to be marked with the others that came in meanwhile. */
  private record Answer(AlertProperties.Endpoint endpoint, AlertStore.Found claimed, Integer status, Throwable error,
      CompletableFuture<Void> settled) {}

  /** Marks every answer that came in since the last time, in one write. */
  private void settleAnswers() {
    List<Answer> batch = new ArrayList<>();
    for (Answer answer; (answer = answers.poll()) != null; ) {
      batch.add(answer);
    }
    if (batch.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    List<DocumentWrite> marks = new ArrayList<>(batch.size());
    for (Answer answer : batch) {
      marks.add(AlertStore.replacing(answer.claimed(), mark(answer, now)));
    }
    try {
      Set<DocumentWrite> taken = store.writeAll(marks);
      for (int i = 0; i < batch.size(); i++) {
        Answer answer = batch.get(i);
        if (taken.contains(marks.get(i))) {
          count(answer.endpoint(), marks.get(i).document(), now);
        } else {
          LOG.warn("alert delivery {} was taken over by another process before it was marked here",
              answer.claimed().id());
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("marking {} alert deliveries failed; they are sent again once their claims expire: {}", batch.size(),
          e.toString());
    } finally {
      for (Answer answer : batch) {
        inFlight(answer.endpoint()).decrementAndGet();
        unsettled.remove(answer.settled());
        answer.settled().complete(null);
      }
    }
  }

  /** A claimed delivery as its POST's answer leaves it: delivered, to be retried after a wait, or failed. */
  private Map<String, Object> mark(Answer answer, Instant now) {
    Map<String, Object> mark = new LinkedHashMap<>(answer.claimed().source());
    int attempts = ((Number) mark.get("attempts")).intValue() + 1;
    mark.put("attempts", attempts);
    mark.remove("claimOwner");
    mark.remove("claimExpiresAt");
    Integer status = answer.status();
    if (answer.error() == null && status != null && status >= 200 && status < 300) {
      mark.put("state", AlertStates.DELIVERED);
      mark.put("deliveredAt", now.toString());
      mark.remove("lastError");
      return mark;
    }
    String why = answer.error() != null ? String.valueOf(unwrapped(answer.error())) : "HTTP " + status;
    mark.put("lastError", why.length() > 500 ? why.substring(0, 500) : why);
    if (attempts >= settings.maxAttempts()) {
      mark.put("state", AlertStates.FAILED);
    } else {
      mark.put("state", AlertStates.PENDING);
      mark.put("nextAttemptAt", now.plus(settings.backoffAfter(attempts)).toString());
    }
    return mark;
  }

  private void count(AlertProperties.Endpoint endpoint, Map<String, Object> mark, Instant now) {
    switch ((String) mark.get("state")) {
      case AlertStates.DELIVERED -> metrics.sent(endpoint.name(),
          Duration.between(Instant.parse((String) mark.get("creationTime")), now));
      case AlertStates.FAILED -> {
        metrics.failed(endpoint.name());
        LOG.warn("alert delivery {}-{} failed for good after {} attempt(s): {}", mark.get("key"), endpoint.name(),
            mark.get("attempts"), mark.get("lastError"));
      }
      default -> metrics.retried(endpoint.name());
    }
  }

  private static Throwable unwrapped(Throwable error) {
    return error instanceof java.util.concurrent.CompletionException && error.getCause() != null
        ? error.getCause() : error;
  }

  private AtomicInteger inFlight(AlertProperties.Endpoint endpoint) {
    return inFlight.computeIfAbsent(endpoint.name(), name -> new AtomicInteger());
  }

  /** POSTs sent and not yet marked. */
  int inFlight() {
    return unsettled.size();
  }

  /**
   * A graceful stop: no new round or claim, and the POSTs in flight are answered (or time out) and marked before it
   * returns, so a restart sends none of them again.
   */
  @Override
  public void close() {
    stopping = true;
    ScheduledFuture<?> current = rounds;
    if (current != null) {
      current.cancel(false);
    }
    long budget = settings.requestTimeout().plusSeconds(5).toMillis();
    try {
      // a round running now ends before this turn of the (single) scheduler thread: its claims are in unsettled then
      scheduler.submit(() -> { }).get(budget, TimeUnit.MILLISECONDS);
      CompletableFuture<?>[] waiting = unsettled.keySet().toArray(CompletableFuture[]::new);
      CompletableFuture.allOf(waiting).get(budget, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | java.util.concurrent.RejectedExecutionException e) {
      LOG.warn("{} alert POST(s) not marked at stop; their claims expire and they are sent again", unsettled.size());
    } finally {
      scheduler.shutdown();
    }
  }

  /** For the health details. */
  Map<String, Object> details() {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("endpoints", settings.endpoints().stream().map(AlertProperties.Endpoint::name).toList());
    details.put("pending", metrics.pending());
    details.put("failed", metrics.failedStored());
    details.put("sentHere", metrics.sentHere());
    details.put("inFlight", inFlight());
    return details;
  }

  List<AlertProperties.Endpoint> endpoints() {
    return settings.endpoints();
  }
}
