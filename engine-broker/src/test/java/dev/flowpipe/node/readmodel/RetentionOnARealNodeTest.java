package dev.flowpipe.node.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.node.TestNode;
import dev.flowpipe.node.retention.RetentionService;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.retention.Period;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.client.ZeebeClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real node with retention on (ADR 0011), periods of 2 s and no memory of written documents (every update reads its
 * base back through the routing): instances of two periods end up whole and each in its own period's index, searched
 * through the entities' usual names, and the node's sweep reports what the store holds. The oracle is what the client
 * sent and the keys the broker answered, never the exporter's own output.
 */
class RetentionOnARealNodeTest {

  private static final Duration PERIOD = Duration.ofSeconds(2);
  private static final int INSTANCES = 20;

  @RegisterExtension
  static final TwoTaskNode NODE = new TwoTaskNode(Map.of("flowpipe.retention.keep", "1h",
      "flowpipe.retention.period", "2s", "flowpipe.retention.check-interval", "1s",
      "flowpipe.exporter.recent-documents", 0));

  @Test
  void instancesOfTwoPeriodsAreWholeInTheirPeriodsIndicesAndTheSweepReportsTheStore() {
    TestNode node = NODE.node();
    SearchStore store = node.store().client();
    TwoTaskInstances first = new TwoTaskInstances("a", 10);
    TwoTaskInstances second = new TwoTaskInstances("b", 10);
    try (ZeebeClient client = node.client()) {
      first.create(client, INSTANCES);
      Period firstPeriod = Period.of(Instant.now(), PERIOD);
      await("the next period").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
          .until(() -> Instant.now().isAfter(firstPeriod.end()));
      second.create(client, INSTANCES);
      first.runTask(client, 1).runTask(client, 2);
      second.runTask(client, 1).runTask(client, 2);
    }
    List<Long> instances = new ArrayList<>(first.instanceKeys());
    instances.addAll(second.instanceKeys());

    String index = ReadModelIndex.PROCESS_INSTANCE.indexName(NODE.prefix());
    await("every instance COMPLETED in the read model").atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> assertThat(
            store.getAll(index, instances.stream().map(String::valueOf).toList()).values())
            .hasSize(instances.size()).allSatisfy(doc -> assertThat(doc).containsEntry("state", "COMPLETED")));
    for (TwoTaskInstances run : List.of(first, second)) {
      InstanceOwnership.Report report = new InstanceOwnership(store, NODE.prefix()).of(run);
      assertThat(report.allRight()).as(report.toString()).isTrue();
    }
    assertThat(periodIndices(store)).as("the two runs' periods").hasSizeGreaterThanOrEqualTo(2);
    store.refresh(ReadModelIndex.sharedIndexName(NODE.prefix()));
    assertThat(store.admin().request("base", "POST", "/" + ReadModelIndex.sharedIndexName(NODE.prefix()) + "/_count",
        Map.of("query", Map.of("term", Map.of("kind", "process-instance")))).path("count").asLong())
        .as("no instance in the index of the layout before retention").isZero();

    RetentionService sweep = node.context().getBean(RetentionService.class);
    await("a sweep that saw the store").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(sweep.lastFailure()).isEmpty();
      assertThat(sweep.last()).hasValueSatisfying(status -> {
        assertThat(status.bytesHeld()).isPositive();
        assertThat(status.deleted()).as("nothing is an hour old").isEmpty();
      });
    });
  }

  private static List<String> periodIndices(SearchStore store) {
    List<String> names = new ArrayList<>();
    store.admin().request("periods", "GET", "/_cat/indices/" + ReadModelIndex.sharedIndexName(NODE.prefix() + "-p*")
        + "?format=json", null).forEach(row -> names.add(row.path("index").asText()));
    return names;
  }
}
