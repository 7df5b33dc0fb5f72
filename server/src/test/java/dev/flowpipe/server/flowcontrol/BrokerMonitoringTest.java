package dev.flowpipe.server.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerMonitoringTest {

  @Test
  void theLastAppendedPositionOfEachPartitionIsReadFromThePrometheusText() throws Exception {
    try (FakeMonitoringPort port = new FakeMonitoringPort()) {
      port.prometheus = """
          # HELP zeebe_log_appender_last_appended_position The last appended position
          # TYPE zeebe_log_appender_last_appended_position gauge
          zeebe_log_appender_last_appended_position{cluster="c",partition="1",} 4.294967321E9
          zeebe_log_appender_last_appended_position{partition="2"} 77.0
          zeebe_log_appender_last_appended_position_other{partition="3"} 9.0
          zeebe_log_appender_last_committed_position{partition="1",} 12.0
          """;
      BrokerMonitoring monitoring =
          new BrokerMonitoring(ManagementEndpointApplierTest.settings(List.of()), HttpClient.newHttpClient());

      assertThat(monitoring.appendedPositions(port.url())).isEqualTo(Map.of(1, 4_294_967_321L, 2, 77L));
    }
  }

  @Test
  void theBrokersPositionForOurExporterIsReadByItsIdAndNoOtherExportersIs() throws Exception {
    try (FakeMonitoringPort port = new FakeMonitoringPort()) {
      port.prometheus = """
          zeebe_log_appender_last_appended_position{partition="1",} 120.0
          zeebe_exporter_last_updated_exported_position{exporter="flowpipe",partition="1",} 118.0
          zeebe_exporter_last_updated_exported_position{exporter="recorder",partition="1",} 120.0
          zeebe_exporter_last_updated_exported_position{exporter="recorder",partition="2",} 50.0
          zeebe_exporter_last_exported_position{exporter="flowpipe",partition="1",} 120.0
          """;
      BrokerMonitoring monitoring =
          new BrokerMonitoring(ManagementEndpointApplierTest.settings(List.of()), HttpClient.newHttpClient());

      BrokerMonitoring.LogPositions positions = monitoring.logPositions(port.url());

      assertThat(positions.appended()).isEqualTo(Map.of(1, 120L));
      assertThat(positions.exported()).as("acknowledged, not merely handed out; ours only").isEqualTo(Map.of(1, 118L));
    }
  }
}
