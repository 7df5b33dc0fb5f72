package dev.flowpipe.node.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.retention.BucketTable;
import dev.flowpipe.schema.retention.BucketTableStore;
import dev.flowpipe.schema.retention.Period;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.testsupport.StoreProxy;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Issue 32, ADR 0011: a node killed with SIGKILL while its retention sweep deletes a period leaves nothing
 * half-deleted. A real node process writes to a store that outlives it, through a proxy that holds the sweep's index
 * deletion: the period is marked DELETING in the store and its index is still whole when the node dies exactly there.
 * Started again on its data, the node replays its whole log (no snapshot was taken, so the broker re-exports from the
 * start, the deleted period's instances too) while its first sweep finishes the deletion: the period marked DELETED,
 * its index gone, no document of its instances left anywhere under the prefix and none written again by the replay,
 * and an instance that runs longer than the retention whole and unchanged. The oracle is what the client created and
 * the store's concrete indices read directly.
 *
 * <p>The premise: the doomed instances start and end within one period, so that the sweep finds that period whole and
 * due at once and deletes its index, rather than pruning its instances one by one while the last of them has not
 * ended {@code keep} ago. They are created just after a period starts (the node's clock is this machine's), the
 * period is wide enough for their creation and completion on a loaded machine, and the premise is asserted from their
 * documents before the kill: a missed premise fails as such, not as a wrong verdict on the sweep.
 */
// a node and its store beside another class's would stretch the doomed instances' run: it runs alone
@Isolated
@ExtendWith(SharedOpenSearch.class)
class SweepKilledMidDeletionTest {

  private static final Duration READY = Duration.ofMinutes(5);
  private static final ObjectMapper JSON = new ObjectMapper();
  // wide enough for 8 creations and 8 job completions on a loaded machine (about 1 s on a quiet one)
  private static final Duration PERIOD = Duration.ofSeconds(10);
  // the long-runner's creation, which closes the doomed period, must be exported within it
  private static final Duration KEEP = Duration.ofSeconds(5);
  // how far into a period the doomed instances start: past the boundary on every clock reading of this machine
  private static final Duration AFTER_BOUNDARY = Duration.ofMillis(100);
  private static final int DOOMED = 8;

  @TempDir Path temp;

  private final List<NodeProcess> nodes = new ArrayList<>();

  @AfterEach
  void stopNodes() {
    nodes.forEach(NodeProcess::close);
  }

  @Test
  void aNodeKilledBetweenTheDeletingMarkAndTheIndexDeletionFinishesTheDeletionAfterItsRestartAndItsReplayWritesNothingBack(
      EmbeddedSearchStore opensearch, SearchStore direct) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    StoreDocuments documents = new StoreDocuments(direct, prefix);
    try (StoreProxy proxy = new StoreProxy(opensearch.url(), null, null)) {
      Map<String, Object> settings = new LinkedHashMap<>();
      settings.put("flowpipe.store.url", proxy.url());
      settings.put("flowpipe.exporter.index-prefix", prefix);
      settings.put("flowpipe.retention.keep", KEEP.toSeconds() + "s");
      settings.put("flowpipe.retention.period", PERIOD.toSeconds() + "s");
      settings.put("flowpipe.retention.check-interval", "500ms");
      // no snapshot during the test: the restarted broker re-exports its log from the start
      settings.put("zeebe.broker.data.snapshot-period", "1h");
      StoreProxy.HeldRequest deletion = proxy.holdNext("DELETE", "/" + prefix + "-p\\d{14}-read-model-v2");

      long started = System.nanoTime();
      NodeProcess node = start(settings);
      System.out.printf("[killed-sweep] node ready in %.1f s%n", secondsSince(started));
      List<Long> doomed = new ArrayList<>();
      long longRunner;
      long recordsBeforeKill;
      Period doomedPeriod;
      try (ZeebeClient client = node.client()) {
        client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess("kept")
            .startEvent().serviceTask("work", task -> task.zeebeJobType("work")).endEvent().done(), "kept.bpmn")
            .send().join();
        // the doomed instances start just after a period starts, and have the whole period to end
        doomedPeriod = Period.of(Period.of(Instant.now(), PERIOD).end(), PERIOD);
        awaitTime(doomedPeriod.start().plus(AFTER_BOUNDARY));
        for (int i = 0; i < DOOMED; i++) {
          doomed.add(create(client, i));
        }
        completeJobs(client, DOOMED);
        System.out.printf("[killed-sweep] %d instances created and completed %.1f s into their %d s period%n", DOOMED,
            Duration.between(doomedPeriod.start(), Instant.now()).toMillis() / 1e3, PERIOD.toSeconds());
        assertDoomedWithinOnePeriod(documents, doomed, doomedPeriod, prefix);
        // the long-runner in a later period than the doomed instances: that one is kept, pinned
        awaitTime(doomedPeriod.end().plus(AFTER_BOUNDARY));
        longRunner = create(client, -1);
      }

      // 1. the sweep marks the doomed period DELETING and sends its deletion, which the proxy holds
      assertThat(deletion.awaitArrival(Duration.ofSeconds(90))).as("a period index deletion reached the store")
          .isTrue();
      String heldIndex = deletion.path().substring(1);
      assertThat(heldIndex).as("the held deletion is the doomed instances' period's index")
          .isEqualTo(doomedPeriod.indexName(prefix));
      Map<Long, Map<String, Integer>> doomedBefore = documents.countsByKind(doomed);
      Map<String, JsonNode> longRunnerBefore = documents.of(List.of(longRunner)).get(longRunner);
      recordsBeforeKill = processInstanceRecordsHandedOver(node);

      // 2. killed exactly there
      node.kill();
      deletion.fail(); // never reaches the store
      Period period = periodOfIndex(direct, prefix, heldIndex);
      assertThat(new BucketTableStore(direct, prefix).read(PERIOD).state(period)).as("the mark the kill left")
          .isEqualTo(BucketTable.State.DELETING);
      assertThat(documents.indices()).as("the period's index, still there").contains(heldIndex);
      assertThat(doomedBefore)
          .as("premise: each doomed instance whole, nothing of its period pruned before the kill (instance, 3 element "
              + "instances, 2 sequence flows, 2 variables, a job); a prune means the long-runner's creation, which "
              + "closes the period, was not exported within keep (%s) of the period's end", KEEP)
          .allSatisfy((key, kinds) -> assertThat(kinds).isEqualTo(Map.of("process-instance", 1,
              "flow-node-instance", 3, "sequence-flow", 2, "variable", 2, "job", 1)));
      assertThat(documents.countsByKind(doomed)).as("nothing of the period deleted before the kill")
          .isEqualTo(doomedBefore);
      assertThat(longRunnerBefore)
          .as("the long-runner: instance, 2 element instances, the sequence flow to its task, 2 variables, a job")
          .hasSize(7);

      // 3. restarted on its data: the sweep finishes the deletion while the exporter replays the whole log
      long restarted = System.nanoTime();
      NodeProcess again = start(settings);
      System.out.printf("[killed-sweep] restarted, ready in %.1f s%n", secondsSince(restarted));
      await("the restarted node's exporter replays the log up to where the killed one was")
          .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
          .until(() -> processInstanceRecordsHandedOver(again) >= recordsBeforeKill);
      await("the restarted node finishes the deletion").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(new BucketTableStore(direct, prefix).read(PERIOD).state(period))
                .isEqualTo(BucketTable.State.DELETED);
            assertThat(documents.indices()).doesNotContain(heldIndex);
          });
      awaitExporterCaughtUp(again);
      System.out.printf("[killed-sweep] deletion finished and the replay (%d process-instance records; %d before the "
          + "kill) exported, %.1f s after the restart began%n", processInstanceRecordsHandedOver(again),
          recordsBeforeKill, secondsSince(restarted));

      assertThat(documents.indices()).as("no index of the deleted period, under any name")
          .noneMatch(index -> index.contains(period.label()));
      assertThat(documents.of(doomed)).as("no document of the deleted period's instances, anywhere")
          .allSatisfy((key, left) -> assertThat(left).isEmpty());
      assertThat(documents.of(List.of(longRunner)).get(longRunner)).as("the long-runner, whole and unchanged")
          .isEqualTo(longRunnerBefore);
      // what the node shows of its store: health and gauges give the oldest data, the bytes and the next deletion
      JsonNode health = JSON.readTree(again.get("/actuator/health/retention").body());
      System.out.printf("[killed-sweep] health retention: %s%n", health);
      assertThat(health.path("status").asText()).isEqualTo("UP");
      assertThat(health.path("details").path("bytesHeld").asLong()).isPositive();
      assertThat(Instant.parse(health.path("details").path("oldestDataHeld").asText()))
          .isAfterOrEqualTo(period.end());
      assertThat(health.path("details").path("nextDeletion").asText()).isNotEmpty();
      String metrics = again.text("/actuator/prometheus");
      for (String gauge : List.of("flowpipe_retention_oldest_data_age_seconds", "flowpipe_retention_bytes_held_bytes",
          "flowpipe_retention_next_deletion_seconds")) {
        assertThat(metrics.lines().filter(line -> line.startsWith(gauge + " ") || line.startsWith(gauge + "{"))
            .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))))
            .as(gauge).singleElement().satisfies(value -> assertThat(value).isFinite());
      }
    }
  }

  private NodeProcess start(Map<String, Object> settings) throws IOException {
    NodeProcess node = NodeProcess.launch(temp.resolve("data"), settings);
    nodes.add(node);
    return node.awaitReady("/actuator/health/readiness", READY);
  }

  /**
   * The premise, from what the exporter wrote: every doomed instance routed to the period's index (its creation in the
   * period) and ended before the period's end, so that the sweep finds the period due and deletable at once.
   */
  private static void assertDoomedWithinOnePeriod(StoreDocuments documents, List<Long> doomed, Period period,
      String prefix) throws IOException {
    String index = period.indexName(prefix);
    Map<Long, JsonNode> instances = new LinkedHashMap<>();
    await("the doomed instances exported, ended").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
        .until(() -> {
          instances.clear();
          documents.of(doomed).forEach((key, found) -> found.forEach((name, source) -> {
            if (name.startsWith("process-instance/") && source.hasNonNull("endDate")) {
              instances.put(key, source);
            }
          }));
          return instances.size() == doomed.size();
        });
    Instant firstStart = instances.values().stream().map(source -> Instant.parse(source.path("startDate").asText()))
        .min(Instant::compareTo).orElseThrow();
    Instant lastEnd = instances.values().stream().map(source -> Instant.parse(source.path("endDate").asText()))
        .max(Instant::compareTo).orElseThrow();
    String premise = "premise missed (not a verdict on the sweep): the %d doomed instances must start and end within "
        + "the period %s-%s; they ran from %s to %s (load average %s)";
    assertThat(firstStart).as(premise, doomed.size(), period.start(), period.end(), firstStart, lastEnd, loadAverage())
        .isAfterOrEqualTo(period.start());
    assertThat(lastEnd).as(premise, doomed.size(), period.start(), period.end(), firstStart, lastEnd, loadAverage())
        .isBefore(period.end());
    assertThat(documents.of(doomed)).as("every document of the doomed instances in the period's index %s", index)
        .allSatisfy((key, found) -> assertThat(found.keySet()).allMatch(name -> name.endsWith(" in " + index)));
  }

  private static void awaitTime(Instant time) {
    await("the clock at " + time).atMost(PERIOD.multipliedBy(2)).pollInterval(Duration.ofMillis(20))
        .until(() -> !Instant.now().isBefore(time));
  }

  private static String loadAverage() throws IOException {
    return Files.readString(Path.of("/proc/loadavg")).trim();
  }

  private static long create(ZeebeClient client, int i) {
    return client.newCreateInstanceCommand().bpmnProcessId("kept").latestVersion()
        .variables(Map.of("order", i, "customer", "c" + i)).send().join().getProcessInstanceKey();
  }

  private static void completeJobs(ZeebeClient client, int count) {
    int done = 0;
    while (done < count) {
      for (ActivatedJob job : client.newActivateJobsCommand().jobType("work").maxJobsToActivate(count - done)
          .requestTimeout(Duration.ofSeconds(10)).send().join().getJobs()) {
        client.newCompleteCommand(job.getKey()).send().join();
        done++;
      }
    }
  }

  /** The period whose index the held deletion named, as the table the store holds knows it. */
  private static Period periodOfIndex(SearchStore store, String prefix, String index) {
    return new BucketTableStore(store, prefix).read(PERIOD).periods().stream()
        .filter(period -> period.indexName(prefix).equals(index)).findFirst()
        .orElseThrow(() -> new AssertionError("no period of the table has the index " + index));
  }

  /** Process-instance records the broker handed to the node's exporter since the node started. */
  private static long processInstanceRecordsHandedOver(NodeProcess node) throws IOException {
    double sum = 0;
    for (String line : node.text("/actuator/prometheus").split("\n")) {
      if (line.startsWith("flowpipe_exporter_records_total{") && line.contains("valueType=\"PROCESS_INSTANCE\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return (long) sum;
  }

  /** Nothing handed to the exporter is still to be made durable. */
  private static void awaitExporterCaughtUp(NodeProcess node) {
    await("the exporter caught up").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
        .until(() -> {
          for (String line : node.text("/actuator/prometheus").split("\n")) {
            if (line.startsWith("flowpipe_exporter_lag_records{")
                && Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)) > 0) {
              return false;
            }
          }
          return true;
        });
  }

  private static double secondsSince(long nanos) {
    return (System.nanoTime() - nanos) / 1e9;
  }
}
