package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.webapp.WebappApplication;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Batch operations with two web apps over one store and one engine, as the nodes of a cluster have them: a node
 * process (broker, gateway, embedded store; its own web app without operations) and two web apps, A and B, started
 * as Spring contexts in this JVM against its store and gateway, each with the operations on. The oracle is the
 * engine's own record of commands ({@link RecordFileExporter}, read by {@link EngineCancellations}), not the batch's
 * counters.
 *
 * <ol>
 *   <li>A batch cancel started on A while B is restarted mid-batch: B's start must take nothing of a batch A holds, so
 *       each instance receives exactly one CANCEL command (none sent twice, none rejected) and is terminated once.
 *   <li>A batch cancel started on A, and A stopped mid-batch: B takes it up once A's lease has expired and ends it; each
 *       instance is cancelled exactly once (one accepted CANCEL, one ELEMENT_TERMINATED); only commands A had in flight
 *       at its stop may be sent again, and the engine rejects those.
 * </ol>
 */
class BatchCancelInAClusterTest {

  private static final int INSTANCES = 300;
  private static final String LEASE_EXPIRY = "3s";
  /** A sends one command at a time, so that its batch lasts beyond a web app's restart. */
  private static final int PARALLELISM_OF_A = 1;
  private static final Duration WAIT = Duration.ofSeconds(120);

  @Test
  void eachInstanceReceivesOneCommandWhileTheOtherWebAppRestartsAndAfterTheHolderStops(
      @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path work)
      throws Exception {
    Path root = Path.of(System.getProperty("flowpipe.project.root", "..")).toAbsolutePath();
    Path records = work.resolve("records");
    NodeProcess node = NodeProcess.start(root, work.resolve("node"), List.of(
        // a fresh node under a burst of creations on busy cores refuses some (RESOURCE_EXHAUSTED): not the subject
        "--flowpipe.flow-control.enabled=false",
        "--flowpipe.broker.additional-exporters.recorder.class-name=" + RecordFileExporter.class.getName(),
        "--flowpipe.broker.additional-exporters.recorder.args." + RecordFileExporter.DIRECTORY + "=" + records),
        root.resolve("system-tests/target/classes").toString());
    List<Long> restartCase;
    List<Long> takeoverCase;
    long doneAtStopOfA;
    String restartBatch;
    String takeoverBatch;
    JsonNode restartProgress;
    JsonNode takeoverProgress;
    try {
      restartCase = BatchRestart.createWaitingInstances(node, "cluster-restart", INSTANCES);
      takeoverCase = BatchRestart.createWaitingInstances(node, "cluster-takeover", INSTANCES);
      String storeUrl = node.storeUrl();
      String gateway = "127.0.0.1:" + node.ports().gateway();
      ConfigurableApplicationContext a = webapp(storeUrl, gateway, PARALLELISM_OF_A);
      ConfigurableApplicationContext b = webapp(storeUrl, gateway, 2);
      try {
        WebApiAs onA = api(a);
        await("the read model shows the instances active").atMost(WAIT).until(() -> onA.search("process-instances",
            "{\"filter\": {\"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}}").path("page").path("totalItems")
            .asInt() == 2 * INSTANCES);

        // case 1: B restarted while A runs a batch
        restartBatch = startCancel(onA, "cluster-restart");
        awaitItemsDone(onA, restartBatch, INSTANCES / 10);
        b.close();
        b = webapp(storeUrl, gateway, 2);
        long activeAfterRestart = items(api(b), restartBatch, "ACTIVE");
        assertThat(activeAfterRestart).as("items still active once B was up again: B restarted mid-batch")
            .isPositive();
        restartProgress = awaitEnd(onA, restartBatch);

        // case 2: A stopped mid-batch; B takes it up after the lease expiry
        takeoverBatch = startCancel(onA, "cluster-takeover");
        doneAtStopOfA = awaitItemsDone(onA, takeoverBatch, INSTANCES / 3);
        a.close();
        assertThat(doneAtStopOfA).as("A stopped before the batch's end").isLessThan(INSTANCES);
        takeoverProgress = awaitEnd(api(b), takeoverBatch);
      } finally {
        a.close();
        b.close();
      }
      node.terminate(); // the recorder syncs its file on a clean stop
    } finally {
      node.close();
    }

    EngineCancellations engine = EngineCancellations.read(records);
    SoftAssertions.assertSoftly(soft -> {
      soft.assertThat(restartProgress.path("state").asText()).as("case 1 batch state").isEqualTo("COMPLETED");
      soft.assertThat(restartProgress.path("operationsCompletedCount").asInt()).as("case 1 completed")
          .isEqualTo(INSTANCES);
      soft.assertThat(violations(engine, restartCase, true)).as("case 1: instances without exactly one CANCEL "
          + "command (none rejected) and one ELEMENT_TERMINATED").isEmpty();
      soft.assertThat(takeoverProgress.path("state").asText()).as("case 2 batch state").isEqualTo("COMPLETED");
      soft.assertThat(takeoverProgress.path("operationsCompletedCount").asInt()).as("case 2 completed")
          .isEqualTo(INSTANCES);
      soft.assertThat(takeoverProgress.path("operationsFailedCount").asInt()).as("case 2 failed").isZero();
      soft.assertThat(violations(engine, takeoverCase, false)).as("case 2: instances without exactly one accepted "
          + "CANCEL and one ELEMENT_TERMINATED").isEmpty();
      soft.assertThat(takeoverCase.stream().mapToInt(key -> engine.of(key).rejections()).sum())
          .as("case 2: CANCEL commands sent again (at most those A had in flight at its stop)")
          .isLessThanOrEqualTo(PARALLELISM_OF_A);
    });
    System.out.printf("batch in a cluster: case 1 (%s) %s; case 2 (%s) A stopped at %d of %d done, then %s;"
            + " CANCEL commands rejected: case 1 %d, case 2 %d%n", restartBatch, restartProgress, takeoverBatch,
        doneAtStopOfA, INSTANCES, takeoverProgress,
        restartCase.stream().mapToInt(key -> engine.of(key).rejections()).sum(),
        takeoverCase.stream().mapToInt(key -> engine.of(key).rejections()).sum());
  }

  /** A standalone web app against the node's store and gateway, with a write user and a short batch lease. */
  private static ConfigurableApplicationContext webapp(String storeUrl, String gateway, int parallelism) {
    SpringApplication application = new SpringApplication(WebappApplication.class);
    application.setDefaultProperties(WebappApplication.DEFAULTS);
    return application.run("--server.port=0", "--flowpipe.store.url=" + storeUrl,
        "--flowpipe.webapp.operations.gateway-address=" + gateway,
        "--flowpipe.webapp.operations.batch-parallelism=" + parallelism,
        "--flowpipe.webapp.operations.batch-lease-expiry=" + LEASE_EXPIRY,
        "--flowpipe.webapp.security.basic-auth=true",
        "--flowpipe.webapp.security.users[0].username=operator",
        "--flowpipe.webapp.security.users[0].password=o",
        "--flowpipe.webapp.security.users[0].roles=read,write");
  }

  private static WebApiAs api(ConfigurableApplicationContext webapp) {
    return new WebApiAs(Integer.parseInt(webapp.getEnvironment().getProperty("local.server.port")), "operator", "o");
  }

  private static String startCancel(WebApiAs api, String process) throws Exception {
    JsonNode batch = api.expect(200, "POST", "/v2/process-instances/cancellation",
        "{\"filter\": {\"processDefinitionId\": \"" + process + "\"}}");
    assertThat(batch.path("operationsTotalCount").asInt()).as("items of the batch").isEqualTo(INSTANCES);
    return batch.path("batchOperationKey").asText();
  }

  private static JsonNode awaitEnd(WebApiAs api, String key) {
    return await("batch " + key + " ends").atMost(WAIT).pollInterval(Duration.ofMillis(100))
        .until(() -> api.get("/v2/batch-operations/" + key), batch -> !"ACTIVE".equals(batch.path("state").asText()));
  }

  /** Waits until at least {@code enough} items are no longer active; returns how many are then. */
  private static long awaitItemsDone(WebApiAs api, String key, long enough) {
    return await("batch items done").atMost(WAIT).pollInterval(Duration.ofMillis(50))
        .until(() -> INSTANCES - items(api, key, "ACTIVE"), done -> done >= enough);
  }

  private static long items(WebApiAs api, String key, String state) throws Exception {
    return api.search("batch-operation-items", "{\"filter\": {\"batchOperationKey\": \"" + key
        + "\", \"state\": \"" + state + "\"}, \"page\": {\"limit\": 0}}").path("page").path("totalItems").asLong();
  }

  /**
   * The instances the engine did not cancel exactly once: one accepted CANCEL and one ELEMENT_TERMINATED, and with
   * {@code noneSentAgain} no rejected CANCEL either (at most 20 named).
   */
  private static List<String> violations(EngineCancellations engine, List<Long> instances, boolean noneSentAgain) {
    List<String> violations = new ArrayList<>();
    for (long instance : instances) {
      EngineCancellations.Counts counts = engine.of(instance);
      if (counts.accepted() != 1 || counts.terminations() != 1 || (noneSentAgain && counts.rejections() != 0)) {
        violations.add("instance " + instance + ": " + counts);
      }
    }
    return violations.subList(0, Math.min(20, violations.size()));
  }
}
