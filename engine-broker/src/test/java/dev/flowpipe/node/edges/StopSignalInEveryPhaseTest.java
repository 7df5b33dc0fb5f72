package dev.flowpipe.node.edges;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.flowpipe.node.edges.EdgeNodes.READY;
import static dev.flowpipe.node.edges.EdgeNodes.freePort;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.PreviousSchemaReadModel;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM (Ctrl-C, {@code systemctl stop}) in each phase of a real node's life: the node exits within its
 * {@code flowpipe.shutdown-timeout}, and its embedded store is gone. Each phase's time from signal to exit is printed.
 * Serving is {@code NodeProcessTest}'s case (within the default timeout, and nothing lost), not started again here.
 */
@ExtendWith(SharedOpenSearch.class)
class StopSignalInEveryPhaseTest {

  private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);
  /**
   * The frozen store's case can only end when the timeout is up (the watchdog kills the store then): a short one, so
   * that the case shows the cut at the timeout without waiting the long one out.
   */
  private static final Duration FROZEN_STORE_SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);

  @TempDir Path temp;

  private NodeProcess node;
  private Duration shutdownTimeout;

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  private NodeProcess launch(Path data, Map<String, Object> settings) throws IOException {
    return launch(data, settings, SHUTDOWN_TIMEOUT);
  }

  private NodeProcess launch(Path data, Map<String, Object> settings, Duration timeout) throws IOException {
    shutdownTimeout = timeout;
    Map<String, Object> all = new LinkedHashMap<>(settings);
    all.put("flowpipe.shutdown-timeout", timeout.toSeconds() + "s");
    node = NodeProcess.launch(data, all);
    return node;
  }

  /** Sends SIGTERM, asserts the exit within the timeout and that no store is left on {@code data}; returns the ms. */
  private long terminateWithinTheTimeout(String phase, Path data) throws Exception {
    long start = System.nanoTime();
    boolean exited = node.terminate(shutdownTimeout.plusSeconds(30));
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf("SIGTERM while %s: exited in %d ms (exit code %s)%n", phase, millis,
        exited ? node.exitCode() : "none");
    assertThat(exited).as("exited at all").isTrue();
    assertThat(millis).as("exited within " + shutdownTimeout + " while " + phase + "; log:\n" + node.logTail())
        .isLessThanOrEqualTo(shutdownTimeout.toMillis());
    assertThat(NodeProcess.storesOn(data)).as("the embedded store gone").isEmpty();
    return millis;
  }

  private void awaitLog(String text) {
    await("node log: " + text).atMost(READY).pollInterval(Duration.ofMillis(50))
        .until(() -> node.log().contains(text));
  }

  @Test
  void whileWaitingForPeersThatNeverCome() throws Exception {
    Path data = temp.resolve("data");
    launch(data, Map.of(
        "flowpipe.broker.cluster-size", 3,
        "flowpipe.broker.replication-factor", 3,
        "flowpipe.broker.contact-points", "127.0.0.1:" + freePort() + ",127.0.0.1:"
            + freePort(),
        "flowpipe.store.embedded.serves-cluster", true));
    awaitLog("search store ready");
    // the broker is starting now; it waits for its peers for ever
    await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6)).until(() -> true);
    assertThat(node.log()).as("not started: no peers").doesNotContain("Started NodeApplication");

    terminateWithinTheTimeout("waiting for peers", data);
  }

  @Test
  void whileTheEmbeddedStoreStarts() throws Exception {
    Path data = temp.resolve("data");
    launch(data, Map.of());
    await("the store launched").atMost(READY).pollInterval(Duration.ofMillis(20))
        .until(() -> !NodeProcess.storesOn(data).isEmpty());
    assertThat(node.log()).doesNotContain("search store ready");

    terminateWithinTheTimeout("starting the embedded store", data);
  }

  @Test
  void whileMigratingTheSchemaOfAnOlderReadModel(EmbeddedSearchStore external) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    PreviousSchemaReadModel.write(external.url(), prefix, 20_000); // a read model of the previous schema version, big enough
    Path data = temp.resolve("data");
    launch(data, Map.of("flowpipe.store.url", external.url(), "flowpipe.exporter.index-prefix", prefix));
    awaitLog("migrating the read model from schema version");

    terminateWithinTheTimeout("migrating the schema", data);
  }

  @Test
  void whileStoppingWithTheStoreFrozen() throws Exception {
    Path data = temp.resolve("data");
    launch(data, Map.of(), FROZEN_STORE_SHUTDOWN_TIMEOUT);
    node.awaitReady("/actuator/health/readiness", READY);
    ProcessHandle store = NodeProcess.storesOn(data).getFirst();
    // a store that stops answering (SIGSTOP): the exporter's last flush and the store's own stop hang
    new ProcessBuilder("kill", "-STOP", String.valueOf(store.pid())).start().waitFor();
    try {
      deployAndRun(node); // records the exporter cannot write: the broker answers without the store
      terminateWithinTheTimeout("stopping, with the store frozen", data);
    } finally {
      new ProcessBuilder("kill", "-CONT", String.valueOf(store.pid())).start().waitFor();
    }
  }

  private static void deployAndRun(NodeProcess node) {
    try (ZeebeClient client = node.client()) {
      client.newDeployResourceCommand()
          .addProcessModel(Bpmn.createExecutableProcess("stop").startEvent().endEvent().done(), "stop.bpmn")
          .send().join();
      for (int i = 0; i < 10; i++) {
        client.newCreateInstanceCommand().bpmnProcessId("stop").latestVersion().send().join();
      }
    }
  }

}
