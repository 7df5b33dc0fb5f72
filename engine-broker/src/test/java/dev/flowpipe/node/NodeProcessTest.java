package dev.flowpipe.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.command.ClientStatusException;
import io.camunda.zeebe.client.api.worker.JobWorker;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.grpc.Status;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node as a user runs it: its own process, stopped with SIGTERM or killed with SIGKILL. Neither may leave the
 * embedded OpenSearch running, and SIGTERM must lose nothing.
 */
class NodeProcessTest {

  @TempDir Path temp;

  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void killLeftovers() {
    for (Process process : started) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  @Test
  void killingTheNodeWithSigkillStopsTheEmbeddedStoreToo() throws Exception {
    NodeUnderTest node = startNode(temp.resolve("data"));
    ProcessHandle store = node.embeddedStore();

    node.process.destroyForcibly(); // SIGKILL: no shutdown hook runs in the node
    node.process.waitFor(10, TimeUnit.SECONDS);

    await("embedded OpenSearch exits after the node was killed")
        .atMost(Duration.ofSeconds(30))
        .until(() -> !store.isAlive());
  }

  @Test
  void sigtermShutsDownCleanlyAndLosesNothing() throws Exception {
    Path data = temp.resolve("data");
    NodeUnderTest node = startNode(data);
    ProcessHandle store = node.embeddedStore();
    Set<Long> instances = ConcurrentHashMap.newKeySet();
    Set<Long> jobsDone = ConcurrentHashMap.newKeySet();
    try (ZeebeClient client = node.client()) {
      client
          .newDeployResourceCommand()
          .addProcessModel(
              Bpmn.createExecutableProcess("sigterm").startEvent().serviceTask("t", t -> t.zeebeJobType("t"))
                  .endEvent().done(),
              "sigterm.bpmn")
          .send()
          .join();
      for (int i = 0; i < 20; i++) {
        instances.add(
            client.newCreateInstanceCommand().bpmnProcessId("sigterm").latestVersion().send().join()
                .getProcessInstanceKey());
      }
      try (JobWorker worker =
          client.newWorker().jobType("t")
              .handler(
                  (jobs, job) -> {
                    // as a real worker does: a command refused by backpressure (the node's flow control may hold
                    // writes back while its store warms up on a busy machine) is sent again
                    for (int attempt = 1; ; attempt++) {
                      try {
                        jobs.newCompleteCommand(job.getKey()).send().join();
                        break;
                      } catch (ClientStatusException e) {
                        if (e.getStatusCode() != Status.Code.RESOURCE_EXHAUSTED || attempt >= 100) {
                          throw e;
                        }
                        Thread.sleep(100);
                      }
                    }
                    jobsDone.add(job.getProcessInstanceKey());
                  })
              .pollInterval(Duration.ofMillis(50))
              .open()) {
        await().atMost(Duration.ofSeconds(60)).until(() -> jobsDone.containsAll(instances));
      }
    }

    long start = System.nanoTime();
    node.process.destroy(); // SIGTERM
    assertThat(node.process.waitFor(60, TimeUnit.SECONDS)).as("node exits after SIGTERM").isTrue();
    long shutdownMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(store.isAlive()).as("embedded OpenSearch stopped with the node").isFalse();
    String log = Files.readString(node.log);
    assertThat(log).contains("broker closed in").contains("embedded OpenSearch stopped");
    System.out.println("SIGTERM to exit: " + shutdownMillis + " ms");

    // every instance whose job was completed before SIGTERM ends up COMPLETED in the read model after a restart:
    // what the exporter had not acknowledged is exported again from the last acknowledged position
    NodeUnderTest restarted = startNode(data);
    try (SearchStore search = SearchStoreConnector.connect(StoreConnection.of(restarted.storeUrl()))) {
      String index = ReadModelIndex.PROCESS_INSTANCE.indexName("flowpipe");
      await("all instances COMPLETED in the store after the restart")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                for (long key : instances) {
                  assertThat(search.get(index, String.valueOf(key)))
                      .hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "COMPLETED"));
                }
              });
    }
  }

  private NodeUnderTest startNode(Path data) throws IOException {
    int http = TestNode.freePort();
    int gateway = TestNode.freePort();
    Files.createDirectories(temp);
    Path log = Files.createTempFile(temp, "node", ".log");
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx768m",
                "-cp",
                System.getProperty("java.class.path"),
                NodeApplication.class.getName(),
                "--flowpipe.data-directory=" + data,
                "--server.port=" + http,
                "--flowpipe.gateway.port=" + gateway,
                "--flowpipe.broker.command-port=" + TestNode.freePort(),
                "--flowpipe.broker.internal-port=" + TestNode.freePort(),
                "--flowpipe.store.embedded.http-port=" + TestNode.freePort(),
                "--flowpipe.store.embedded.transport-port=" + TestNode.freePort(),
                "--flowpipe.store.embedded.heap=512MB",
                "--flowpipe.store.embedded.classpath=" + System.getProperty("flowpipe.store.embedded.classpath")));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    started.add(process);
    NodeUnderTest node = new NodeUnderTest(process, http, gateway, log);
    try {
      await("node ready on :" + http)
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(250))
          // only "not listening yet": an early exit must fail at once, with the node's log
          .ignoreExceptionsInstanceOf(IOException.class)
          .until(node::isReady);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("node not ready on :" + http + " within 120 s; its log ends:\n" + tail(log), e);
    }
    return node;
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  private record NodeUnderTest(Process process, int httpPort, int gatewayPort, Path log) {

    boolean isReady() throws Exception {
      if (!process.isAlive()) {
        throw new AssertionError("node exited early:\n" + Files.readString(log));
      }
      HttpResponse<String> response = health("/actuator/health/readiness");
      return response.statusCode() == 200 && response.body().contains("\"status\":\"UP\"");
    }

    HttpResponse<String> health(String path) throws Exception {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path)).build(),
              HttpResponse.BodyHandlers.ofString());
    }

    String storeUrl() throws Exception {
      String body = health("/actuator/health").body();
      int start = body.indexOf("\"url\":\"") + 7;
      return body.substring(start, body.indexOf('"', start));
    }

    ProcessHandle embeddedStore() {
      Optional<ProcessHandle> child =
          process.descendants()
              .filter(p -> p.info().commandLine().orElse("").contains("EmbeddedOpenSearchMain"))
              .findFirst();
      assertThat(child).as("embedded OpenSearch child of the node").isPresent();
      return child.get();
    }

    ZeebeClient client() {
      return ZeebeClient.newClientBuilder()
          .grpcAddress(URI.create("http://127.0.0.1:" + gatewayPort))
          .usePlaintext()
          .build();
    }
  }
}
