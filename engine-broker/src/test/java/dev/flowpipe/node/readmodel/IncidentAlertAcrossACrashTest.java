package dev.flowpipe.node.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.NodeProcess;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 36, ADR 0021: what a webhook receiver sees when a node dies (SIGKILL) between an alert's POST and its mark. A
 * real node process writes to a store that outlives it; the test webhook server holds the POST, the node is killed,
 * then the held request is answered to no one. Restarted on its data (no snapshot was taken, so the broker re-exports
 * its log from the start, the incident's creation too), the node finds the delivery claimed by the dead process, waits
 * out the claim and sends it again: the receiver gets the alert twice, with the same alert id and valid signatures
 * (at least once across a crash), and never a third time; the replayed creation re-arms nothing.
 */
@ExtendWith(SharedOpenSearch.class)
class IncidentAlertAcrossACrashTest {

  private static final Duration READY = Duration.ofMinutes(5);
  private static final String SECRET = "the-crash-test-alerts-secret";

  @TempDir Path temp;

  private final List<NodeProcess> nodes = new ArrayList<>();
  private final WebhookReceiver receiver = new WebhookReceiver(SECRET);

  @AfterEach
  void stop() {
    nodes.forEach(NodeProcess::close);
    receiver.close();
  }

  @Test
  void anAlertWhosePostOutlivedAKilledNodeIsSentOnceMoreWithTheSameIdAfterItsClaimExpires(
      EmbeddedSearchStore opensearch, SearchStore direct) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("flowpipe.store.url", opensearch.url());
    settings.put("flowpipe.exporter.index-prefix", prefix);
    settings.put("flowpipe.flow-control.enabled", false);
    settings.put("zeebe.broker.data.snapshot-period", "1h");
    settings.put("flowpipe.alerts.enabled", true);
    settings.put("flowpipe.alerts.secret", SECRET);
    settings.put("flowpipe.alerts.endpoints[0].name", "test");
    settings.put("flowpipe.alerts.endpoints[0].url", receiver.url());
    settings.put("flowpipe.alerts.request-timeout", "10s");
    settings.put("flowpipe.alerts.claim-timeout", "20s");

    receiver.hang();
    NodeProcess node = start(settings);
    long instance;
    try (ZeebeClient client = node.client()) {
      client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess("crashing").startEvent()
          .serviceTask("charge", t -> t.zeebeJobType("crash-charge")).endEvent().done(), "crashing.bpmn")
          .send().join();
      instance = client.newCreateInstanceCommand().bpmnProcessId("crashing").latestVersion().send().join()
          .getProcessInstanceKey();
      failJob(client, "crash-charge");
    }
    await("the alert's POST arrives and is held").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
        .until(() -> receiver.arrived().size() == 1);
    String alertId = receiver.arrived().getFirst();

    node.kill();
    receiver.release(); // the held request is answered, to a node that is gone
    await("the held request answered").atMost(Duration.ofSeconds(10)).until(() -> receiver.received().size() == 1);
    assertThat(deliveryState(direct, prefix, instance)).as("what the killed node left").isEqualTo("SENDING");

    long restarted = System.nanoTime();
    NodeProcess again = start(settings);
    await("the delivery sent again once the dead node's claim expired").atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(100)).until(() -> receiver.received().size() >= 2
            && "DELIVERED".equals(deliveryState(direct, prefix, instance)));
    System.out.printf("[alert-crash] sent again %.1f s after the restart began%n",
        (System.nanoTime() - restarted) / 1e9);
    // a later incident alerted proves the restarted node went on sending after the resend
    try (ZeebeClient client = again.client()) {
      client.newCreateInstanceCommand().bpmnProcessId("crashing").latestVersion().send().join();
      failJob(client, "crash-charge");
    }
    await("a later alert").atMost(Duration.ofSeconds(60)).until(() -> receiver.received().size() >= 3);

    List<WebhookReceiver.Received> ofTheAlert = receiver.received().stream()
        .filter(r -> r.alertId().equals(alertId)).toList();
    System.out.printf("[alert-crash] the receiver saw alert %s %d time(s), signatures valid: %s%n", alertId,
        ofTheAlert.size(), ofTheAlert.stream().map(WebhookReceiver.Received::signatureValid).toList());
    assertThat(ofTheAlert).hasSize(2).allMatch(WebhookReceiver.Received::signatureValid)
        .allMatch(r -> r.body().contains("\"processInstanceKey\":\"" + instance + "\""));
    assertThat(receiver.received()).hasSize(3);
  }

  private static String deliveryState(SearchStore store, String prefix, long instance) {
    var hits = store.search(SearchQuery.of(ReadModelIndex.ALERT_DELIVERY.indexName(prefix),
        List.of(new Criterion.Equals("processInstanceKey", instance)), List.of(), 1)).hits();
    return hits.isEmpty() ? null : (String) hits.getFirst().source().get("state");
  }

  private static void failJob(ZeebeClient client, String type) {
    List<ActivatedJob> jobs = new ArrayList<>();
    await("a job of " + type).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
      jobs.addAll(client.newActivateJobsCommand().jobType(type).maxJobsToActivate(1).send().join().getJobs());
      return !jobs.isEmpty();
    });
    client.newFailCommand(jobs.getFirst().getKey()).retries(0).errorMessage("declined").send().join();
  }

  private NodeProcess start(Map<String, Object> settings) throws IOException {
    NodeProcess node = NodeProcess.launch(temp.resolve("data"), settings);
    nodes.add(node);
    return node.awaitReady("/actuator/health/readiness", READY);
  }
}
