package dev.flowpipe.node.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.DegradedStoreExperiment;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * With our exporter switched off no store can fall behind: the controller must see no lag and never limit writes,
 * however much the engine writes (a regression: an exporter director with no exporters reports no position, which
 * once read as an ever-growing backlog and held the engine at the floor).
 */
// timing-sensitive (limits, engage and release times, refusals at light load): no other class runs beside it
@Isolated
@ExtendWith(SharedOpenSearch.class)
class FlowControlWithoutOurExporterTest {

  @TempDir Path data;

  @Test
  void aNodeWithoutOurExporterIsNeverThrottled(EmbeddedSearchStore store) throws Exception {
    // the test JVM's one store: without our exporter only the web app reads it
    try (TestNode node = new TestNode(data).with("flowpipe.exporter.enabled", false)
            .with("flowpipe.store.url", store.url())
            .with("flowpipe.exporter.index-prefix", SharedOpenSearch.uniquePrefix()).start();
        ZeebeClient client = node.client()) {
      client.newDeployResourceCommand()
          .addProcessModel(Bpmn.createExecutableProcess("plain").startEvent().endEvent().done(), "plain.bpmn")
          .send().join();
      DegradedStoreExperiment experiment = new DegradedStoreExperiment(client, node.httpPort(), "plain");
      try (experiment) {
        for (int batch = 0; batch < 10; batch++) { // 30 at a time: below the broker's request limit
          List<CompletableFuture<?>> created = new ArrayList<>();
          for (int i = 0; i < 30; i++) {
            created.add(client.newCreateInstanceCommand().bpmnProcessId("plain").latestVersion().send()
                .toCompletableFuture());
          }
          CompletableFuture.allOf(created.toArray(CompletableFuture[]::new)).join();
        }
        Thread.sleep(Duration.ofSeconds(2).toMillis()); // eight controller ticks
        var partition = experiment.report().path("partitions").path(0);
        assertThat(partition.path("lagRecords").asLong()).as("records waiting for a store").isZero();
        assertThat(partition.path("lagMillis").asLong()).isZero();
        assertThat(partition.path("writeLimit").path("enabled").asBoolean()).as("write limit").isFalse();
        assertThat(partition.path("throttling").asBoolean()).isFalse();
      }
    }
  }
}
