package dev.flowpipe.node;

import dev.flowpipe.node.broker.EmbeddedBroker;
import dev.flowpipe.node.store.RunningStore;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.ScratchDirectories;
import io.camunda.zeebe.client.ZeebeClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real node (broker, gateway, exporter, embedded OpenSearch) started in this JVM on free ports, with its data in a
 * directory the test owns. Restartable on the same directory and ports.
 */
public final class TestNode implements AutoCloseable {

  private final Path dataDirectory;
  private final Map<String, Object> properties = new LinkedHashMap<>();
  private ConfigurableApplicationContext context;

  public TestNode(Path dataDirectory) {
    this.dataDirectory = dataDirectory;
    properties.put("flowpipe.data-directory", dataDirectory.toString());
    // Tomcat's work directory under one of this JVM's scratch directories, removed when it exits, not one more in the
    // system's temporary directory per node; not in the data directory, which a refused start must leave unmade
    properties.put("server.tomcat.basedir", TomcatDirectories.next().toString());
    properties.put("flowpipe.gateway.port", freePort());
    properties.put("flowpipe.broker.command-port", freePort());
    properties.put("flowpipe.broker.internal-port", freePort());
    properties.put("flowpipe.store.embedded.http-port", freePort());
    properties.put("flowpipe.store.embedded.transport-port", freePort());
    properties.put("flowpipe.store.embedded.heap", "512MB");
    // the store's JVM is new with each node: C1 only, as a node process of a test (see NodeProcess.TEST_JIT)
    if (!NodeProcess.TEST_JIT.isEmpty()) {
      properties.put("flowpipe.store.embedded.jvm-options", NodeProcess.TEST_JIT);
    }
    properties.put("flowpipe.exporter.index-refresh-interval", "100ms");
    properties.put("flowpipe.exporter.bulk.delay", "50ms");
    properties.put("server.port", 0);
  }

  public TestNode with(String key, Object value) {
    properties.put(key, value);
    return this;
  }

  public TestNode start() {
    List<String> args = new ArrayList<>();
    properties.forEach((key, value) -> args.add("--" + key + "=" + value));
    context = new SpringApplicationBuilder(NodeApplication.class).run(args.toArray(String[]::new));
    awaitReady();
    return this;
  }

  /** Until the broker is ready and the gateway knows a leader for every partition. */
  private void awaitReady() {
    EmbeddedBroker broker = broker();
    int partitions = broker.config().getCluster().getPartitionsCount();
    try (ZeebeClient client = client()) {
      Awaitility.await("broker ready with a leader for each partition")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .until(
              () ->
                  broker.isReady()
                      && broker.isHealthy()
                      && client.newTopologyRequest().send().join().getBrokers().stream()
                              .flatMap(b -> b.getPartitions().stream())
                              .filter(p -> p.isLeader())
                              .count()
                          == partitions);
    }
  }

  public void stop() {
    if (context != null) {
      context.close();
      context = null;
    }
  }

  public boolean isRunning() {
    return context != null && context.isActive();
  }

  public ConfigurableApplicationContext context() {
    return context;
  }

  public RunningStore store() {
    return context.getBean(RunningStore.class);
  }

  public EmbeddedBroker broker() {
    return context.getBean(EmbeddedBroker.class);
  }

  public int httpPort() {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }

  public Path dataDirectory() {
    return dataDirectory;
  }

  /** The gateway's {@code host:port}, as a client or a web app on its own is given it. */
  public String gatewayAddress() {
    return "127.0.0.1:" + properties.get("flowpipe.gateway.port");
  }

  public ZeebeClient client() {
    return ZeebeClient.newClientBuilder()
        .grpcAddress(java.net.URI.create("http://127.0.0.1:" + properties.get("flowpipe.gateway.port")))
        .usePlaintext()
        .defaultRequestTimeout(Duration.ofSeconds(20))
        .build();
  }

  @Override
  public void close() {
    stop();
  }

  /** The test JVM's Tomcat work directories, one per node. */
  private static final class TomcatDirectories {
    private static final Path ROOT;
    private static final AtomicInteger NEXT = new AtomicInteger();

    static {
      try {
        ROOT = ScratchDirectories.create("test-node-tomcat");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    static Path next() {
      return ROOT.resolve("node-" + NEXT.incrementAndGet());
    }
  }

  public static int freePort() {
    // outside the kernel's ephemeral range, never twice in this JVM (NodeProcess.freePort)
    return NodeProcess.freePort();
  }
}
