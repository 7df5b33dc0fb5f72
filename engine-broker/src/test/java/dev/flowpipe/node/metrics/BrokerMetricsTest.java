package dev.flowpipe.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.node.webapp.Http;
import dev.flowpipe.node.webapp.SharedWebappNode;
import dev.flowpipe.node.webapp.SharedWebappNode.Runs;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@code /actuator/prometheus} shows the broker's own metrics (processing, backpressure, exporting, Raft), which it
 * keeps in another registry, beside the node's, on a node that has run instances.
 */
// it reads the broker's metrics, which Zeebe keeps in the JVM's one Prometheus registry: a broker of another class closing beside it removes their series
@Isolated
@ExtendWith(SharedWebappNode.class)
@ResourceLock(SharedWebappNode.LOCK)
class BrokerMetricsTest {

  @Test
  void theBrokersProcessingBackpressureExporterAndRaftMetricsAppearBesideOurs(Runs runs) {
    String body = Http.get(runs.baseUrl() + "/actuator/prometheus").raw().body();
    Set<String> families = Arrays.stream(body.split("\n")).filter(line -> line.startsWith("# TYPE "))
        .map(line -> line.split(" ")[2]).collect(Collectors.toCollection(TreeSet::new));

    assertThat(families).as("metric families on the endpoint").contains(
        "zeebe_element_instance_events_total", // processing
        "zeebe_backpressure_requests_limit", "zeebe_dropped_request_count_total", // backpressure
        "zeebe_flow_control_outcome_total",
        "zeebe_exporter_events_total", // exporting
        "zeebe_log_appender_commit_latency", "atomix_role", // the log and Raft
        "flowpipe_exporter_records_total", "jvm_memory_used_bytes"); // ours and Spring's, still there
  }
}
