package dev.flowpipe.node.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.DegradedStoreExperiment.Sample;
import dev.flowpipe.testsupport.DegradedStoreExperiment;
import dev.flowpipe.testsupport.StoreProxy;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The experiment of the flow-control issues, in one run on a node whose controller is on from the start: a steady load
 * on a healthy store refuses nothing; then a store slowed below what the load needs. With the controller switched off
 * the lag grows; a static limit below the degraded export rate drains it; the controller, on again, holds it at its
 * target with clients seeing backpressure, and gives the full rate back when the store recovers. Every instance the
 * engine accepted is in the read model at the end.
 */
// timing-sensitive (limits, engage and release times, refusals at light load): no other class runs beside it
@Isolated
@ExtendWith(SharedOpenSearch.class)
class FlowControlUnderDegradedStoreTest {

  private static final int LOAD_PER_SECOND = 40;
  // the store then absorbs a fraction of the ~3 documents per instance the load needs
  private static final double DEGRADED_OPERATIONS_PER_SECOND = 45;
  private static final long TARGET_MILLIS = 2_000;
  private static final int MIN_WRITE_RATE = 40;
  // the controller's window (the default): its rates are the slowed store's once the store has been slow this long
  private static final double WINDOW_SECONDS = 5;

  @TempDir Path data;

  @Test
  void lagGrowsWithoutControlDrainsUnderAStaticLimitAndSettlesAtTheTargetUnderTheController(
      EmbeddedSearchStore opensearch, SearchStore direct) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    try (StoreProxy proxy = new StoreProxy(opensearch.url(), null, null);
        TestNode node = new TestNode(data)
            .with("flowpipe.store.url", proxy.url())
            // the experiment switches flow control off and sets a static limit through POST /actuator/flowControl
            .with("flowpipe.webapp.security.actuator-writes-enabled", true)
            .with("flowpipe.exporter.index-prefix", prefix)
            .with("flowpipe.exporter.bulk.size", 50)
            .with("flowpipe.flow-control.max-export-lag", TARGET_MILLIS + "ms")
            // the floor well below what the slowed store absorbs (~200 records/s idle, half that on a loaded
            // machine), so that the controller, not the floor, holds the lag
            .with("flowpipe.flow-control.min-write-rate", MIN_WRITE_RATE)
            .start();
        ZeebeClient client = node.client();
        DegradedStoreExperiment experiment = new DegradedStoreExperiment(client, node.httpPort(), "steady")) {
      try {
        runExperiment(experiment, proxy, client, direct, prefix);
      } finally {
        java.nio.file.Files.createDirectories(Path.of("target"));
        java.nio.file.Files.writeString(Path.of("target", "flow-control-timeline.csv"), experiment.csv());
      }
    }
  }

  private void runExperiment(
      DegradedStoreExperiment experiment, StoreProxy proxy, ZeebeClient client, SearchStore direct, String prefix)
      throws Exception {
    client.newDeployResourceCommand()
        .addProcessModel(Bpmn.createExecutableProcess("steady").startEvent().endEvent().done(), "steady.bpmn")
        .send().join();

    // 0. the controller is on from the start, as by default: while the store keeps up it sets no limit (what the
    // broker's own request limiter does on a busy machine is another matter)
    experiment.start(LOAD_PER_SECOND);
    experiment.phase("healthy");
    experiment.run(Duration.ofSeconds(6));
    assertThat(experiment.samples("healthy")).allSatisfy(s ->
        assertThat(s.writeLimit()).as("no write limit while the store keeps up").isNull());

    // 1. the store slows down with the controller switched off: the lag grows without bound. The phase lasts until
    // that is seen (past twice the target and still growing by at least half a second a second), and at least a
    // window, so that the export rate is the slowed store's
    assertThat(experiment.configure("{\"enabled\": false}").statusCode()).isEqualTo(200);
    proxy.throttleBulksTo(DEGRADED_OPERATIONS_PER_SECOND);
    experiment.phase("degraded no control");
    await("the lag grows past twice the target and keeps growing").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> lagGrowing(experiment.samples("degraded no control")));
    List<Sample> uncontrolled = experiment.samples("degraded no control");
    double degradedExportRate = mean(since(uncontrolled, WINDOW_SECONDS), Sample::exportRate);
    assertThat(degradedExportRate).as("records/s the slowed store absorbs").isPositive();

    // 2. a static limit below the degraded export rate: the backlog drains
    int staticLimit = (int) Math.max(MIN_WRITE_RATE, degradedExportRate * 0.5);
    assertThat(experiment.configure("{\"writeLimit\": " + staticLimit + "}").statusCode()).isEqualTo(200);
    experiment.phase("static limit");
    long backlogBefore = experiment.report().path("partitions").path(0).path("lagRecords").asLong();
    await("backlog drains under the static limit").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
        .until(() -> experiment.report().path("partitions").path(0).path("lagRecords").asLong()
            < backlogBefore / 4);

    // 3. the controller on again, no static limit: once the lag has stayed at the target for a window while the
    // backlog grew, it engages; the lag settles at the target, clients see backpressure
    long rejectedBefore = experiment.rejected();
    assertThat(experiment.configure("{\"writeLimit\": 0, \"enabled\": true, \"maxExportLag\": \"" + TARGET_MILLIS
        + "ms\"}").statusCode()).isEqualTo(200);
    experiment.phase("controller settling");
    // the lag comes down from what the static phase left: settling ends once the lag's mean over the last window is
    // near the target (a single sample says little: the slowed store acknowledges in bulks, the lag is a sawtooth)
    await("the controller brings the lag down to the target").atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> lagNearTheTarget(experiment.samples("controller settling")));
    // from there the integral term finds the limit that holds the target (time constant ~4 s)
    experiment.run(Duration.ofSeconds(5));
    experiment.phase("controller settled");
    experiment.run(Duration.ofSeconds(10));
    double settledLag = mean(experiment.samples("controller settled"), s -> (double) s.lagMillis());
    assertThat(settledLag).as("mean lag once settled (ms), target %d", TARGET_MILLIS)
        .isBetween(TARGET_MILLIS * 0.8, TARGET_MILLIS * 1.2);
    assertThat(experiment.rejected())
        .as("commands rejected with RESOURCE_EXHAUSTED (other errors: %s, not sent: %d)", experiment.errorKinds(),
            experiment.notSent())
        .isGreaterThan(rejectedBefore);
    assertThat(experiment.samples("controller settled")).allSatisfy(s ->
        assertThat(s.writeLimit()).as("a write limit, never below the floor").isNotNull()
            .isGreaterThanOrEqualTo(MIN_WRITE_RATE));

    // 4. the store recovers: the limit goes and the full rate comes back
    proxy.throttleBulksTo(0);
    experiment.phase("recovered");
    await("the controller lets go").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
        .until(() -> !experiment.report().path("partitions").path(0).path("writeLimit").path("enabled")
            .asBoolean());
    // answers to commands sent while the limit was still in force may arrive in the first sample after it went
    experiment.phase("released");
    experiment.run(Duration.ofMillis(500));
    experiment.phase("full rate");
    experiment.run(Duration.ofSeconds(4));
    assertThat(mean(experiment.samples("full rate"), Sample::acceptedPerSecond))
        .as("instances accepted per second after recovery, offered %d", LOAD_PER_SECOND)
        .isGreaterThan(LOAD_PER_SECOND * 0.7); // the engine also works off commands it took in while throttled
    assertThat(experiment.samples("full rate")).allSatisfy(s -> {
      assertThat(s.writeLimit()).as("no write limit").isNull();
      assertThat(s.rejectedPerSecond()).as("no backpressure").isZero();
    });

    // nothing lost: every accepted instance reaches the read model (and nothing the engine did not create)
    experiment.stopLoad();
    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    DegradedStoreExperiment.awaitInReadModel(chunk -> direct.getAll(index, chunk), experiment.acceptedKeys());
    List<String> accepted = experiment.acceptedKeys().stream().map(String::valueOf).toList();
    direct.refresh(index);
    java.util.Set<String> acceptedSet = java.util.Set.copyOf(accepted);
    List<Object> extra = direct.all(index, 10_000).stream()
        .filter(doc -> !acceptedSet.contains(String.valueOf(doc.get("key")))).map(doc -> (Object) doc).toList();
    assertThat(direct.count(index))
        .withFailMessage("extra instances in the read model: %s (rejected %d, timed out %d)", extra,
            experiment.rejected(), experiment.unknownOutcome()).as("instances in the read model: the accepted ones, plus at most those whose "
        + "request timed out (%d)", experiment.unknownOutcome())
        .isBetween((long) accepted.size(), accepted.size() + experiment.unknownOutcome());
    assertThat(experiment.otherErrors()).as("errors other than backpressure and timeouts: %s", experiment.errorKinds())
        .isZero();
  }

  /**
   * Whether the phase so far shows a lag growing without bound: it spans a window, the lag is past twice the target,
   * and it grew by at least a second over the last two.
   */
  private static boolean lagGrowing(List<Sample> samples) {
    if (samples.size() < 2 || samples.getLast().seconds() - samples.getFirst().seconds() < WINDOW_SECONDS + 1) {
      return false;
    }
    Sample last = samples.getLast();
    long twoSecondsBefore = samples.stream().filter(s -> last.seconds() - s.seconds() >= 2).reduce((a, b) -> b)
        .orElseThrow().lagMillis();
    return last.lagMillis() > TARGET_MILLIS * 2 && last.lagMillis() >= twoSecondsBefore + 1_000;
  }

  /** Whether the phase spans a window and the lag's mean over its last window is within a quarter of the target. */
  private static boolean lagNearTheTarget(List<Sample> samples) {
    if (samples.size() < 2 || samples.getLast().seconds() - samples.getFirst().seconds() < WINDOW_SECONDS) {
      return false;
    }
    double from = samples.getLast().seconds() - WINDOW_SECONDS;
    double recent = mean(samples.stream().filter(s -> s.seconds() >= from).toList(), s -> (double) s.lagMillis());
    return Math.abs(recent - TARGET_MILLIS) <= TARGET_MILLIS * 0.25;
  }

  /** The samples taken at least {@code secondsIntoPhase} after the phase's first. */
  private static List<Sample> since(List<Sample> samples, double secondsIntoPhase) {
    double start = samples.getFirst().seconds();
    return samples.stream().filter(s -> s.seconds() - start >= secondsIntoPhase).toList();
  }

  private static double mean(List<Sample> samples, java.util.function.ToDoubleFunction<Sample> value) {
    return samples.stream().mapToDouble(value).average().orElse(0);
  }
}
