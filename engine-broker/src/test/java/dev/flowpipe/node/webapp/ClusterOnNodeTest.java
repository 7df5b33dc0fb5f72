package dev.flowpipe.node.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.node.webapp.Http.Answer;
import dev.flowpipe.node.webapp.SharedWebappNode.Runs;
import io.camunda.zeebe.broker.system.configuration.BrokerCfg;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code GET /v2/topology} and {@code GET /v2/status} of a real node, checked against the broker's own configuration
 * (not against the gateway's topology answer the endpoint is made from).
 */
@ExtendWith(SharedWebappNode.class)
@ResourceLock(SharedWebappNode.LOCK)
class ClusterOnNodeTest {

  @Test
  void theTopologyIsTheNodesBrokerWithALeaderForEachPartition(Runs runs) {
    BrokerCfg config = runs.node().broker().config();

    Answer answer = Http.get(runs.baseUrl() + "/v2/topology");

    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
    JsonNode topology = answer.json();
    assertThat(topology.path("clusterSize").asInt()).isEqualTo(config.getCluster().getClusterSize());
    assertThat(topology.path("partitionsCount").asInt()).isEqualTo(config.getCluster().getPartitionsCount());
    assertThat(topology.path("replicationFactor").asInt()).isEqualTo(config.getCluster().getReplicationFactor());
    assertThat(topology.path("gatewayVersion").asText()).startsWith("8.6");
    assertThat(topology.path("lastCompletedChangeId").asText()).isEqualTo("-1");
    assertThat(topology.path("brokers")).hasSize(1);
    JsonNode broker = topology.path("brokers").get(0);
    assertThat(broker.path("nodeId").asInt()).isEqualTo(config.getCluster().getNodeId());
    assertThat(broker.path("port").asInt()).isEqualTo(config.getNetwork().getCommandApi().getAdvertisedPort());
    List<String> partitions = new ArrayList<>();
    broker.path("partitions").forEach(p -> partitions.add(
        p.path("partitionId").asInt() + " " + p.path("role").asText() + " " + p.path("health").asText()));
    List<String> expected = new ArrayList<>();
    for (int id = 1; id <= config.getCluster().getPartitionsCount(); id++) {
      expected.add(id + " leader healthy");
    }
    assertThat(partitions).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void theStatusOfANodeThatLeadsItsPartitionsIs204(Runs runs) {
    Answer answer = Http.get(runs.baseUrl() + "/v2/status");

    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(204);
  }
}
