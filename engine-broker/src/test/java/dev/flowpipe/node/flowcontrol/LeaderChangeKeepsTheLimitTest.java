package dev.flowpipe.node.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.StoreProxy;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.testsupport.DegradedStoreExperiment;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.BrokerInfo;
import io.camunda.zeebe.client.api.response.PartitionInfo;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Issue 20: after a leader change the write limit is in force on the new leader. Three node processes form a cluster
 * (one partition, three replicas) writing through a proxy to a real store, with flow control on its defaults; once the
 * cluster is up, the proxy fails every bulk with 503 (the store is down for writes). A client creates instances through a follower's gateway: the backlog grows, and the leader's
 * controller engages. The leader is killed with SIGKILL; the broker of the node that takes over builds its limiter
 * from its configuration (no limit), so the test asks that node's broker, through its flowControl report, for the
 * limit it enforces, until one is in force. The new leader's controller has no history of the partition: it engages
 * on its own measurement, one warm-up threshold and one window after it took over.
 */
// timing-sensitive (limits, engage and release times, refusals at light load): no other class runs beside it
@Isolated
@ExtendWith(SharedOpenSearch.class)
class LeaderChangeKeepsTheLimitTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** The controller's defaults: twice the 2 s target while warming up, over a 5 s window, plus election and slack. */
  private static final Duration LIMIT_AFTER_TAKEOVER = Duration.ofSeconds(30);

  @TempDir Path directory;

  @Test
  void theNewLeaderEnforcesAWriteLimitWhileTheStoreIsStillDown(EmbeddedSearchStore opensearch) throws Exception {
    int[] internalPorts = {TestNode.freePort(), TestNode.freePort(), TestNode.freePort()};
    String contactPoints = "127.0.0.1:" + internalPorts[0] + ",127.0.0.1:" + internalPorts[1] + ",127.0.0.1:"
        + internalPorts[2];
    String prefix = SharedOpenSearch.uniquePrefix();
    List<NodeProcess> nodes = new ArrayList<>();
    try (StoreProxy store = new StoreProxy(opensearch.url(), null, null)) {
      for (int id = 0; id < 3; id++) {
        nodes.add(NodeProcess.launch(directory.resolve("node-" + id), Map.of(
            "flowpipe.broker.node-id", id,
            "flowpipe.broker.cluster-size", 3,
            "flowpipe.broker.replication-factor", 3,
            "flowpipe.broker.partitions-count", 1,
            "flowpipe.broker.internal-port", internalPorts[id],
            "flowpipe.broker.contact-points", contactPoints,
            "flowpipe.store.url", store.url(),
            "flowpipe.exporter.index-prefix", prefix)));
      }
      nodes.forEach(node -> node.awaitReady("/actuator/health/readiness"));
      store.failBulksAtRandom(new Random(20), 1.0);

      int firstLeader = awaitLeader(nodes, -1);
      NodeProcess gatewayNode = nodes.get((firstLeader + 1) % 3);
      try (ZeebeClient client = gatewayNode.client();
          DegradedStoreExperiment load = new DegradedStoreExperiment(client, gatewayNode.httpPort(), "leader-change")) {
        client.newDeployResourceCommand()
            .addProcessModel(Bpmn.createExecutableProcess("leader-change").startEvent().endEvent().done(),
                "leader-change.bpmn")
            .send().join();
        load.start(100); // instances a second; refusals are counted, never retried

        long engageStart = System.nanoTime();
        await("the first leader (node " + firstLeader + ") enforces a write limit").atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> enforcedLimit(nodes.get(firstLeader)).isPresent());
        double engagedAfter = (System.nanoTime() - engageStart) / 1e9;
        assertRoles(nodes, firstLeader, -1);
        long refusedBefore = load.rejected();

        nodes.get(firstLeader).kill();
        long killed = System.nanoTime();
        int newLeader = awaitLeader(nodes, firstLeader);
        double electedAfter = (System.nanoTime() - killed) / 1e9;
        long createdAtTakeover = load.acceptedKeys().size();
        await("the new leader (node " + newLeader + ") enforces a write limit")
            .atMost(LIMIT_AFTER_TAKEOVER).pollInterval(Duration.ofMillis(250))
            .until(() -> enforcedLimit(nodes.get(newLeader)).isPresent());
        double limitedAfter = (System.nanoTime() - killed) / 1e9;
        // the limit refuses commands on the new leader too, not only in its report
        long refusedAtLimit = load.rejected();
        long createdAtLimit = load.acceptedKeys().size();
        boolean refusing = awaitQuietly(Duration.ofSeconds(10), () -> load.rejected() > refusedAtLimit);
        JsonNode report = partition(nodes.get(newLeader));
        System.out.printf("[leader-change] first leader node %d engaged %.1f s after the load started (%d refused);"
                + " killed; node %d led after %.1f s (%d created by then), its limit in force %.1f s after the kill;"
                + " since then %d created, %d refused; report %s; other errors: %s%n",
            firstLeader, engagedAfter, refusedBefore, newLeader, electedAfter, createdAtTakeover, limitedAfter,
            load.acceptedKeys().size() - createdAtLimit, load.rejected() - refusedAtLimit, report, load.errorKinds());
        assertThat(refusing).as("commands refused by the new leader's limit").isTrue();
        assertRoles(nodes, newLeader, firstLeader);
        assertThat(report.path("throttling").asBoolean()).as("the new leader's controller throttles").isTrue();
      }
    } finally {
      nodes.forEach(NodeProcess::close);
    }
  }

  private static boolean awaitQuietly(Duration atMost, java.util.concurrent.Callable<Boolean> condition) {
    try {
      await().atMost(atMost).pollInterval(Duration.ofMillis(100)).until(condition);
      return true;
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return false;
    }
  }

  /**
   * Each live node's report names its role in partition 1 as the topology has it: the leader's "leader", the others'
   * "follower" (a follower replays the log with a stream processor of its own, which is no leadership). A role change
   * reaches a report within a tick of the controller.
   */
  private static void assertRoles(List<NodeProcess> nodes, int leader, int dead) {
    await("node " + leader + " reports itself leader of partition 1, the others follower")
        .atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
          for (int id = 0; id < nodes.size(); id++) {
            if (id != dead) {
              assertThat(partition(nodes.get(id)).path("role").asText()).as("node %d's role", id)
                  .isEqualTo(id == leader ? "leader" : "follower");
            }
          }
        });
  }

  /** The node that leads partition 1, waited for; not {@code previous}. */
  private static int awaitLeader(List<NodeProcess> nodes, int previous) {
    int[] leader = {-1};
    await("a leader for partition 1 other than node " + previous).atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200)).ignoreExceptions()
        .until(() -> {
          for (int id = 0; id < nodes.size(); id++) {
            if (id == previous) {
              continue;
            }
            try (ZeebeClient client = nodes.get(id).client()) {
              for (BrokerInfo broker : client.newTopologyRequest().send().join(2, TimeUnit.SECONDS).getBrokers()) {
                for (PartitionInfo partition : broker.getPartitions()) {
                  if (partition.isLeader() && broker.getNodeId() != previous) {
                    leader[0] = broker.getNodeId();
                    return true;
                  }
                }
              }
            }
          }
          return false;
        });
    return leader[0];
  }

  /** The write limit the node's broker enforces on partition 1 (its flow-control configuration), if any. */
  private static OptionalInt enforcedLimit(NodeProcess node) {
    JsonNode write = partition(node).path("writeLimit");
    return write.path("enabled").asBoolean() ? OptionalInt.of(write.path("limit").asInt()) : OptionalInt.empty();
  }

  private static JsonNode partition(NodeProcess node) {
    try {
      JsonNode body = JSON.readTree(node.get("/actuator/flowControl").body());
      for (JsonNode partition : body.path("partitions")) {
        if (partition.path("partitionId").asInt() == 1) {
          return partition;
        }
      }
      throw new AssertionError("no partition 1 in the flowControl report: " + body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
