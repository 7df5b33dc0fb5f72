package dev.flowpipe.distribution;

import static org.awaitility.Awaitility.await;

import dev.flowpipe.node.TestNode;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.PartitionBrokerHealth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;

/**
 * Camunda's own Zeebe broker, the camunda-zeebe distribution as Camunda ships it, started with its {@code bin/broker}
 * as a process of its own on free loopback ports. It is configured the way its users configure it: a YAML file of
 * {@code zeebe.broker.*} settings, here with one exporter loaded from a jar.
 */
final class StockZeebeBroker implements AutoCloseable {

  private final Process process;
  private final int gatewayPort;
  private final int managementPort;
  private final Path log;

  private StockZeebeBroker(Process process, int gatewayPort, int managementPort, Path log) {
    this.process = process;
    this.gatewayPort = gatewayPort;
    this.managementPort = managementPort;
    this.log = log;
  }

  /** An exporter as the broker's YAML declares it under {@code zeebe.broker.exporters.<id>}. */
  record Exporter(String id, String className, Path jarPath, Map<String, String> args) {}

  /**
   * Starts the broker of the distribution at {@code home} with its data and log under {@code workDir}, and waits until
   * its gateway knows a healthy leader of its one partition.
   */
  static StockZeebeBroker start(Path home, Path workDir, Exporter exporter) throws IOException {
    Files.createDirectories(workDir);
    int gatewayPort = TestNode.freePort();
    int managementPort = TestNode.freePort();
    Path config = workDir.resolve("broker.yaml");
    Files.writeString(config, yaml(workDir.resolve("data"), gatewayPort, managementPort, exporter));
    Path log = workDir.resolve("broker.log");
    ProcessBuilder builder =
        new ProcessBuilder(home.resolve("bin/broker").toString()).redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    // the 8.6 StandaloneBroker ignores command-line arguments: a further configuration file is named by a system
    // property (or the file replaces the distribution's config/application.yaml)
    builder.environment().put("JAVA_OPTS", "-Xmx512m -Dspring.config.additional-location=file:" + config);
    StockZeebeBroker broker = new StockZeebeBroker(builder.start(), gatewayPort, managementPort, log);
    broker.awaitLeader();
    return broker;
  }

  private static String yaml(Path data, int gatewayPort, int managementPort, Exporter exporter) {
    StringBuilder args = new StringBuilder();
    exporter.args().forEach((key, value) -> args.append("          ").append(key).append(": \"").append(value)
        .append("\"\n"));
    return """
        zeebe:
          broker:
            data:
              directory: %s
            network:
              host: 127.0.0.1
              commandApi:
                port: %d
              internalApi:
                port: %d
            gateway:
              enable: true
              network:
                host: 127.0.0.1
                port: %d
            exporters:
              %s:
                className: %s
                jarPath: %s
                args:
        %s
        server:
          port: %d
        management:
          server:
            port: %d
        """.formatted(data, TestNode.freePort(), TestNode.freePort(), gatewayPort, exporter.id(),
        exporter.className(), exporter.jarPath(), args.toString().stripTrailing(), TestNode.freePort(),
        managementPort);
  }

  private void awaitLeader() {
    try (ZeebeClient client = client()) {
      await("a healthy leader of partition 1 behind the stock broker's gateway").atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500)).ignoreExceptions() // the gateway is not listening yet
          .failFast("the stock broker exited", () -> !process.isAlive())
          .until(() -> client.newTopologyRequest().send().join(5, TimeUnit.SECONDS).getBrokers().stream()
                .flatMap(broker -> broker.getPartitions().stream())
                .anyMatch(partition -> partition.isLeader() && partition.getHealth() == PartitionBrokerHealth.HEALTHY));
    } catch (ConditionTimeoutException | TerminalFailureException e) {
      close();
      throw new AssertionError("the stock broker did not become ready; its log ends:\n" + logTail(), e);
    }
  }

  ZeebeClient client() {
    return ZeebeClient.newClientBuilder().grpcAddress(URI.create("http://127.0.0.1:" + gatewayPort)).usePlaintext()
        .defaultRequestTimeout(Duration.ofSeconds(20)).build();
  }

  /** The broker's Prometheus endpoint, on its management port. */
  String prometheus() throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/actuator/prometheus")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** The broker's output so far. */
  String log() throws IOException {
    return Files.readString(log);
  }

  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGTERM, then SIGKILL to whatever still runs after 60 s. */
  @Override
  public void close() {
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    all.add(process.toHandle());
    process.destroy();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        all.forEach(ProcessHandle::destroyForcibly);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      all.forEach(ProcessHandle::destroyForcibly);
    }
  }
}
