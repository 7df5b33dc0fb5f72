package dev.flowpipe.node.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Incident alerts (issue 36) on a real node: a job failed without retries makes an incident, and the test webhook
 * server ({@link WebhookReceiver}, which checks each signature itself) receives its alert once; after a graceful
 * restart of the node, whose broker then re-exports its log from the start, it is not sent again, nor is one whose
 * POST was in flight when the stop began; an endpoint answering 503 gets it after retries once it answers 200; and
 * while the endpoint holds a request unanswered the exporter goes on writing the read model.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IncidentAlertsOnANodeTest {

  private static final String SECRET = "the-alerts-secret-of-the-test";
  private static final WebhookReceiver RECEIVER = new WebhookReceiver(SECRET);
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  static final TwoTaskNode NODE = new TwoTaskNode(Map.ofEntries(
      Map.entry("flowpipe.alerts.enabled", true),
      Map.entry("flowpipe.alerts.secret", SECRET),
      Map.entry("flowpipe.alerts.endpoints[0].name", "test"),
      Map.entry("flowpipe.alerts.endpoints[0].url", RECEIVER.url()),
      Map.entry("flowpipe.alerts.first-backoff", "200ms"),
      Map.entry("flowpipe.alerts.max-backoff", "1s"),
      Map.entry("flowpipe.alerts.request-timeout", "20s"),
      Map.entry("flowpipe.alerts.claim-timeout", "1m"),
      // no snapshot: a restarted broker re-exports its log from the start, the alerts' creations too
      Map.entry("zeebe.broker.data.snapshot-period", "1h")));

  /** A service task whose job type each instance names, so each test fails jobs of its own. */
  private static final BpmnModelInstance FRAGILE = Bpmn.createExecutableProcess("alerting").startEvent()
      .serviceTask("charge", t -> t.zeebeJobTypeExpression("jobType")).endEvent().done();

  @BeforeAll
  void deploy() {
    try (ZeebeClient client = NODE.node().client()) {
      client.newDeployResourceCommand().addProcessModel(FRAGILE, "alerting.bpmn").send().join();
    }
  }

  @AfterAll
  void stopReceiver() {
    RECEIVER.close();
  }

  /** Starts {@code count} instances whose jobs of {@code jobType} fail without retries: one incident each. */
  private static List<Long> incidents(String jobType, int count) {
    List<Long> instances = new ArrayList<>();
    try (ZeebeClient client = NODE.node().client()) {
      for (int i = 0; i < count; i++) {
        instances.add(client.newCreateInstanceCommand().bpmnProcessId("alerting").latestVersion()
            .variables(Map.of("jobType", jobType)).send().join().getProcessInstanceKey());
      }
      List<ActivatedJob> failed = new ArrayList<>();
      Awaitility.await("jobs of " + jobType + " activated and failed").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(50)).until(() -> {
            for (ActivatedJob job : client.newActivateJobsCommand().jobType(jobType).maxJobsToActivate(count)
                .send().join().getJobs()) {
              client.newFailCommand(job.getKey()).retries(0).errorMessage("card declined for " + jobType)
                  .send().join();
              failed.add(job);
            }
            return failed.size() == count;
          });
    }
    return instances;
  }

  private static long incident(String jobType) {
    return incidents(jobType, 1).getFirst();
  }

  private static List<WebhookReceiver.Received> alertsOf(long instanceKey) {
    return RECEIVER.received().stream().filter(r -> r.body().contains("\"processInstanceKey\":\"" + instanceKey + "\""))
        .toList();
  }

  private static List<WebhookReceiver.Received> deliveredOf(long instanceKey) {
    return alertsOf(instanceKey).stream().filter(r -> r.answered() / 100 == 2).toList();
  }

  private static void awaitDelivered(long instanceKey) {
    Awaitility.await("the alert of instance " + instanceKey + " answered with a 2xx").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20)).until(() -> !deliveredOf(instanceKey).isEmpty());
  }

  private static JsonNode json(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static SearchStore store() {
    return NODE.node().store().client();
  }

  private static String deliveryState(String incidentKey) {
    return (String) store().get(ReadModelIndex.ALERT_DELIVERY.indexName(NODE.prefix()), incidentKey + "-test")
        .orElseThrow().get("state");
  }

  @Nested
  class AnIncident {

    @Test
    void isAlertedOnceWithAValidSignatureAndNotAgainAfterAGracefulRestart() {
      long instance = incident("alert-restart");
      awaitDelivered(instance);

      WebhookReceiver.Received alert = alertsOf(instance).getFirst();
      assertThat(alert.signatureValid()).as("signature checked by the receiver").isTrue();
      JsonNode body = json(alert.body());
      assertThat(alert.alertId()).isEqualTo(body.path("incidentKey").asText());
      assertThat(body.path("bpmnProcessId").asText()).isEqualTo("alerting");
      assertThat(body.path("processVersion").asInt()).isEqualTo(1);
      assertThat(body.path("elementId").asText()).isEqualTo("charge");
      assertThat(body.path("errorType").asText()).isEqualTo("JOB_NO_RETRIES");
      assertThat(body.path("errorMessage").asText()).isEqualTo("card declined for alert-restart");
      assertThat(body.path("link").asText()).endsWith("/#/instances/" + instance);
      assertThat(Math.abs(alert.timestamp() - Instant.now().getEpochSecond())).isLessThan(120);

      TestNode node = NODE.node();
      node.stop();
      node.start();
      long afterRestart = incident("alert-after-restart");
      awaitDelivered(afterRestart);

      assertThat(alertsOf(instance)).hasSize(1);
      assertThat(deliveryState(alert.alertId())).isEqualTo("DELIVERED");
      assertThat(alertsOf(afterRestart)).hasSize(1).allMatch(WebhookReceiver.Received::signatureValid);
    }
  }

  @Nested
  class AnAlertInFlight {

    @Test
    void whenTheNodeStopsIsAnsweredAndMarkedBeforeItStopsAndNotSentAgainAfterTheRestart() throws Exception {
      RECEIVER.hang();
      long instance;
      try {
        int before = RECEIVER.arrived().size();
        instance = incident("alert-stop-in-flight");
        Awaitility.await("the POST arrives and is held").atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(20)).until(() -> RECEIVER.arrived().size() == before + 1);
        TestNode node = NODE.node();
        // closed is set as the stop begins; active only once it has ended, which waits for the held POST
        var context = (org.springframework.context.support.AbstractApplicationContext) node.context();
        // on a thread of its own: the broker's close, called from a common-pool thread, never ended (seen: 13 min)
        var stopping = new java.util.concurrent.CompletableFuture<Void>();
        Thread.ofPlatform().name("test-node-stop").start(() -> {
          node.stop();
          stopping.complete(null);
        });
        Awaitility.await("the stop has begun").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
            .until(context::isClosed);
        RECEIVER.release();
        stopping.get(60, java.util.concurrent.TimeUnit.SECONDS);
      } finally {
        RECEIVER.release();
      }
      assertThat(deliveredOf(instance)).as("answered while the node stopped").hasSize(1);

      NODE.node().start();
      long afterRestart = incident("alert-after-stop-in-flight");
      awaitDelivered(afterRestart);

      assertThat(alertsOf(instance)).hasSize(1);
      assertThat(deliveryState(alertsOf(instance).getFirst().alertId())).isEqualTo("DELIVERED");
    }
  }

  @Nested
  class ManyIncidents {

    /**
     * The suite's burst: 20 incidents keep it short; {@code -Dflowpipe.alert-incidents=200} gives the figure of
     * docs/measurements/alert-latency.md.
     */
    static final int COUNT = Integer.getInteger("flowpipe.alert-incidents", 20);

    /**
     * Each of a burst of incidents alerted exactly once with a valid signature; prints the latency from the
     * incident's creation (the record's timestamp, in the body) to the POST's arrival, p50/p99, with the load average
     * (docs/measurements/alert-latency.md).
     */
    @Test
    void areEachAlertedOnceAndTheLatencyIsReported() throws IOException {
      List<Long> instances = incidents("alert-many", COUNT);
      for (long instance : instances) {
        awaitDelivered(instance);
      }

      List<Long> latencies = new ArrayList<>();
      for (long instance : instances) {
        List<WebhookReceiver.Received> alerts = alertsOf(instance);
        assertThat(alerts).as("alerts of instance %s", instance).hasSize(1)
            .allMatch(WebhookReceiver.Received::signatureValid);
        Instant created = Instant.parse(json(alerts.getFirst().body()).path("creationTime").asText());
        latencies.add(alerts.getFirst().arrivedMillis() - created.toEpochMilli());
      }
      latencies.sort(null);
      String metrics = get("/actuator/prometheus");
      assertThat(metrics).contains("flowpipe_alerts_sent_total{endpoint=\"test\"", "flowpipe_alerts_armed_total",
          "flowpipe_alerts_latency_seconds_bucket{endpoint=\"test\"", "flowpipe_alerts_pending ");
      assertThat(json(get("/actuator/health/alerts")).path("status").asText()).isEqualTo("UP");
      String load = Files.readString(Path.of("/proc/loadavg")).trim();
      System.out.printf("[alert-latency] %d incidents: p50 %d ms, p99 %d ms, max %d ms; load average %s%n",
          latencies.size(), latencies.get((int) Math.ceil(0.50 * latencies.size()) - 1),
          latencies.get((int) Math.ceil(0.99 * latencies.size()) - 1), latencies.getLast(), load);
    }
  }

  @Nested
  class AnEndpoint {

    @Test
    void thatIsDownGetsTheAlertAfterRetriesOnceItIsUp() {
      RECEIVER.answer(503);
      try {
        long instance = incident("alert-down");
        Awaitility.await("two refused attempts").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
            .until(() -> alertsOf(instance).size() >= 2);
        RECEIVER.answer(200);
        awaitDelivered(instance);
        // a later alert delivered proves the dispatcher went on after the mark
        long later = incident("alert-down-later");
        awaitDelivered(later);

        assertThat(deliveredOf(instance)).hasSize(1);
        assertThat(alertsOf(instance)).allMatch(WebhookReceiver.Received::signatureValid)
            .extracting(WebhookReceiver.Received::alertId).containsOnly(alertsOf(instance).getFirst().alertId());
      } finally {
        RECEIVER.answer(200);
      }
    }

    @Test
    void thatHangsDoesNotHoldTheExporter() {
      RECEIVER.hang();
      try {
        long instance = incident("alert-hang");
        String index = ReadModelIndex.ALERT_DELIVERY.indexName(NODE.prefix());
        Awaitility.await("the alert claimed and its POST held").atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(20)).until(() -> store().search(SearchQuery.of(index, List.of(
                new Criterion.Equals("processInstanceKey", instance), new Criterion.Equals("state", "SENDING")),
                List.of(), 1)).total() == 1);
        long exportedBefore = exportedPosition();

        List<Long> more = incidents("alert-hang-more", 20);

        Awaitility.await("the exporter writes on while the endpoint hangs").atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(50)).until(() -> exportedPosition() > exportedBefore
                && store().search(SearchQuery.of(ReadModelIndex.INCIDENT.indexName(NODE.prefix()), List.of(
                    new Criterion.OneOf("processInstanceKey", List.copyOf(more))), List.of(), 0)).total() == 20);
        assertThat(alertsOf(instance)).as("still unanswered").isEmpty();
        RECEIVER.release();
        awaitDelivered(instance);
        for (long other : more) {
          awaitDelivered(other);
        }
        assertThat(alertsOf(instance)).hasSize(1);
      } finally {
        RECEIVER.release();
      }
    }
  }

  private static String get(String path) {
    try (var http = java.net.http.HttpClient.newHttpClient()) {
      return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
          + NODE.node().httpPort() + path)).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static long exportedPosition() {
    return store().get(ReadModelIndex.EXPORT_POSITION.indexName(NODE.prefix()), ReadModelIndex.exportPositionId(1))
        .map(document -> ((Number) document.get("position")).longValue()).orElse(-1L);
  }
}
