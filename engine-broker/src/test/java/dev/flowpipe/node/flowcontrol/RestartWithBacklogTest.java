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
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Issue 20: a node restarted with a backlog catches up without its write limit falling to the floor, and refuses
 * none of a light load meanwhile. The store takes no bulk (a proxy answers 503) while a steady load runs on a node
 * with flow control off, for {@code flowpipe.test.backlog-seconds} (30 here; {@code 120} for the two minutes);
 * the node stops, the store comes back, and the node starts again on its data with flow control on its defaults,
 * under the same load. Its exporter starts from the last position the store acknowledged, so the whole backlog is
 * written while new commands arrive. Every accepted instance is in the read model at the end.
 */
// timing-sensitive (limits, engage and release times, refusals at light load): no other class runs beside it
@Isolated
@ExtendWith(SharedOpenSearch.class)
class RestartWithBacklogTest {

  private static final Duration BACKLOG = Duration.ofSeconds(Long.getLong("flowpipe.test.backlog-seconds", 30));
  private static final int LOAD_PER_SECOND = 20;
  /** Caught up: fewer records behind than a second of the load writes. */
  private static final long CAUGHT_UP_RECORDS = 200;

  @TempDir Path data;

  @Test
  void catchesUpWithoutTheLimitFallingToItsFloorAndRefusesNothing(EmbeddedSearchStore opensearch, SearchStore direct)
      throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    Set<Long> accepted = new HashSet<>();
    try (StoreProxy proxy = new StoreProxy(opensearch.url(), null, null);
        TestNode node = new TestNode(data)
            .with("flowpipe.store.url", proxy.url())
            .with("flowpipe.exporter.index-prefix", prefix)
            .with("flowpipe.flow-control.enabled", false)) {
      // 1. the store takes nothing while the load runs: a backlog builds up
      node.start();
      long backlog;
      try (ZeebeClient client = node.client();
          DegradedStoreExperiment storeDown = new DegradedStoreExperiment(client, node.httpPort(), "backlog")) {
        client.newDeployResourceCommand()
            .addProcessModel(Bpmn.createExecutableProcess("backlog").startEvent().endEvent().done(), "backlog.bpmn")
            .send().join();
        proxy.failBulksAtRandom(new Random(20), 1.0);
        storeDown.start(LOAD_PER_SECOND);
        storeDown.phase("store down");
        storeDown.run(BACKLOG);
        storeDown.stopLoad();
        backlog = storeDown.report().path("partitions").path(0).path("lagRecords").asLong();
        accepted.addAll(storeDown.acceptedKeys());
        assertThat(storeDown.otherErrors()).as("errors: %s", storeDown.errorKinds()).isZero();
      }
      assertThat(backlog).as("records behind the store after %s", BACKLOG)
          .isGreaterThan(LOAD_PER_SECOND * BACKLOG.toSeconds());
      node.stop();

      // 2. the store is back; the node starts with flow control on its defaults, under the same load
      proxy.failBulksAtRandom(null, 0);
      long restarted = System.nanoTime();
      node.with("flowpipe.flow-control.enabled", true).start();
      try (ZeebeClient client = node.client();
          DegradedStoreExperiment catchingUp = new DegradedStoreExperiment(client, node.httpPort(), "backlog")) {
        catchingUp.start(LOAD_PER_SECOND);
        catchingUp.phase("catching up");
        await("caught up with the backlog of " + backlog + " records").atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> catchingUp.samples().size() > 4
                && catchingUp.samples().getLast().lagRecords() < CAUGHT_UP_RECORDS);
        double caughtUpAfter = (System.nanoTime() - restarted) / 1e9;
        catchingUp.phase("caught up");
        catchingUp.run(Duration.ofSeconds(3));
        catchingUp.stopLoad();
        accepted.addAll(catchingUp.acceptedKeys());
        List<Sample> samples = catchingUp.samples();
        int floor = 100; // the default min-write-rate
        long limited = samples.stream().filter(s -> s.writeLimit() != null).count();
        System.out.printf("[restart-backlog] %s of backlog: %d records; caught up %.1f s after the restart began, "
                + "export rate up to %.0f records/s; %d of %d samples with a write limit (lowest %s); "
                + "%d commands refused%n", BACKLOG, backlog, caughtUpAfter,
            samples.stream().mapToDouble(Sample::exportRate).max().orElse(0), limited, samples.size(),
            samples.stream().filter(s -> s.writeLimit() != null).mapToInt(Sample::writeLimit).min().stream()
                .boxed().findFirst().map(String::valueOf).orElse("none"), catchingUp.rejected());
        assertThat(samples).allSatisfy(s -> assertThat(s.writeLimit()).as("write limit at %.1f s", s.seconds())
            .satisfiesAnyOf(limit -> assertThat(limit).isNull(), limit -> assertThat(limit).isGreaterThan(floor)));
        assertThat(catchingUp.rejected()).as("commands refused while catching up").isZero();
        assertThat(catchingUp.otherErrors()).as("errors: %s", catchingUp.errorKinds()).isZero();
      }

      // nothing lost: every instance accepted before and after the restart is in the read model
      DegradedStoreExperiment.awaitInReadModel(
          chunk -> direct.getAll(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), chunk), accepted);
    }
  }
}
