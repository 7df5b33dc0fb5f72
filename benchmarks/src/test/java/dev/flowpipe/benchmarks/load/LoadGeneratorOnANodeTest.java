package dev.flowpipe.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.benchmarks.prometheus.ExporterLag;
import dev.flowpipe.benchmarks.harness.ScenarioNodes;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load generator against one real node (own JVM, embedded OpenSearch, started as the scenarios start it), with a
 * tiny load, so the harness cannot rot. (ReadModelFixtureShapeTest starts the other node of this module's tests.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LoadGeneratorOnANodeTest {

  private NodeProcess node;
  private ZeebeClient client;
  private URI http;

  @BeforeAll
  void startNode(@TempDir Path work) throws Exception {
    Path root = Path.of(System.getProperty("flowpipe.project.root", "..")).toAbsolutePath();
    node = NodeProcess.start(root, work, List.of());
    client = ScenarioNodes.client(node);
    http = URI.create("http://127.0.0.1:" + node.httpPort());
  }

  @AfterAll
  void stopNode() throws Exception {
    if (client != null) {
      client.close();
    }
    if (node != null) {
      node.close();
    }
  }

  @Test
  void startsInstancesAtTheRateAndMeasuresEveryCompletionAndTheExporterLag() throws Exception {
    LoadSettings settings = new LoadSettings(10, Duration.ofSeconds(3), 100, null, Duration.ofMillis(10), 100, null,
        http);
    LoadModel model = LoadModel.builtIn();
    model.deploy(client);

    LoadResult result = new LoadGenerator(client, settings, model, new ExporterLag.Reader(http), line -> { }, 0)
        .run();

    // paced: the n-th start is due at n / rate, so 3 s at 10/s are exactly 30 attempts, all in the load's seconds
    assertThat(result.total(LoadWindow::createAttempts)).isEqualTo(30);
    assertThat(result.loadWindows()).hasSize(3).allSatisfy(w -> assertThat(w.createAttempts()).isEqualTo(10));
    // every attempt ends accepted or rejected, nothing else, nothing left in flight
    assertThat(result.total(LoadWindow::created) + result.total(LoadWindow::createRejected)).isEqualTo(30);
    assertThat(result.errorKinds()).isEmpty();
    assertThat(result.notFinished()).isZero();
    assertThat(result.total(LoadWindow::created)).isPositive();
    // each accepted instance completed (one job each, completed by the worker) and has a latency of at least the delay
    assertThat(result.total(LoadWindow::completed)).isEqualTo(result.total(LoadWindow::created));
    assertThat(result.total(LoadWindow::completeAttempts)).isGreaterThanOrEqualTo(result.total(LoadWindow::created));
    assertThat(result.latency().getTotalCount()).isEqualTo(result.total(LoadWindow::completed));
    assertThat(result.latency().getMinValue()).isGreaterThanOrEqualTo(10);
    // the exporter's lag was read from the node's Prometheus text
    assertThat(result.windows()).anySatisfy(w -> assertThat(w.lagAgeMillis()).isGreaterThanOrEqualTo(0));
    assertThat(result.summary().values()).containsKeys("createdPerSecond", "completedPerSecond", "rejectedShare",
        "executionLatencyMillis", "exporterLag");
  }

  @Test
  void theAvailabilityProbeSeesACompletedInstanceInTheStoreAndThroughTheWebAppApi() throws Exception {
    client.newDeployResourceCommand().addProcessModel(
        Bpmn.createExecutableProcess(Availability.PROBE).startEvent().endEvent().done(), "probe.bpmn").send().join();
    try (SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.storeUrl()))) {
      AvailabilityProbe probe = new AvailabilityProbe(client, store, "flowpipe", http);

      AvailabilityProbe.Visibility visible = probe.probe();
      probe.record(visible);

      assertThat(visible.storeMillis()).isBetween(0L, 60_000L);
      assertThat(visible.apiMillis()).isBetween(0L, 60_000L);
      assertThat(probe.storeLatency().getTotalCount()).isEqualTo(1);
      assertThat(probe.apiLatency().getTotalCount()).isEqualTo(1);
    }
  }

  @Test
  void aModelFileGetsAWorkerPerJobTypeAndItsInstancesComplete() throws Exception {
    LoadModel model = LoadModel.fromFile(Path.of(getClass().getClassLoader().getResource("models/two-tasks.bpmn")
        .toURI()));
    model.deploy(client);
    LoadSettings settings = new LoadSettings(5, Duration.ofSeconds(2), 0, null, Duration.ZERO, 100, null, null);

    LoadResult result = new LoadGenerator(client, settings, model, null, line -> { }, 0).run();

    long created = result.total(LoadWindow::created);
    assertThat(created).isPositive();
    assertThat(result.total(LoadWindow::completed)).isEqualTo(created);
    // two jobs per instance: both job types had a worker
    assertThat(result.total(LoadWindow::completeAttempts)).isGreaterThanOrEqualTo(2 * created);
    assertThat(result.windows()).allSatisfy(w -> assertThat(w.lagAgeMillis()).isEqualTo(-1));
  }

  @Test
  void aPausedNodeAndItsStoreAreFrozenAndGoOnWhenResumed() throws Exception {
    List<ProcessHandle> tree = new java.util.ArrayList<>(ProcessHandle.of(node.pid()).orElseThrow().descendants()
        .toList());
    tree.add(ProcessHandle.of(node.pid()).orElseThrow());
    assertThat(tree).as("the node and its embedded store").hasSizeGreaterThanOrEqualTo(2);

    node.pause();
    try {
      assertThat(tree).allSatisfy(p -> assertThat(state(p.pid())).as("pid " + p.pid()).isEqualTo('T'));
    } finally {
      node.resume();
    }

    assertThat(tree).allSatisfy(p -> assertThat(state(p.pid())).as("pid " + p.pid()).isNotEqualTo('T'));
    client.newTopologyRequest().send().join(); // it answers again
  }

  /** The one-letter process state from /proc (T: stopped by a signal). */
  private static char state(long pid) throws java.io.IOException {
    String stat = java.nio.file.Files.readString(Path.of("/proc/" + pid + "/stat"));
    return stat.charAt(stat.lastIndexOf(')') + 2);
  }
}
