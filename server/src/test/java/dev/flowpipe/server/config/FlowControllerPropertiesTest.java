package dev.flowpipe.server.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlowControllerPropertiesTest {

  private static FlowControllerProperties with(String mode, Duration window, List<FlowControllerProperties.Broker> b) {
    return new FlowControllerProperties(true, mode, Duration.ofSeconds(2), 100_000, 100, Duration.ofMillis(250), 0,
        window, Duration.ofSeconds(60), b, 9600, "http", Duration.ofSeconds(2),
        "flowpipe");
  }

  @Test
  void aBadControllerSettingIsNamedWithTheServersKey() {
    assertThatThrownBy(() -> with("fast", Duration.ofSeconds(5), List.of()))
        .hasMessage("flowpipe.server.flow-control.mode must be 'time' or 'records', was 'fast'");
    assertThatThrownBy(() -> with("time", Duration.ofMillis(300), List.of()))
        .hasMessageStartingWith("flowpipe.server.flow-control.window must be between 1s and 1m");
  }

  @Test
  void aBrokerWithoutAnHttpMonitoringUrlOrListedTwiceIsRefusedByItsIndex() {
    assertThatThrownBy(() -> with("time", Duration.ofSeconds(5),
        List.of(new FlowControllerProperties.Broker(0, URI.create("zeebe-0:9600")))))
        .hasMessage("flowpipe.server.flow-control.brokers[0].monitoring-url must be http(s)://host:port, was "
            + "'zeebe-0:9600'");
    URI url = URI.create("http://zeebe-0:9600");
    assertThatThrownBy(() -> with("time", Duration.ofSeconds(5),
        List.of(new FlowControllerProperties.Broker(0, url), new FlowControllerProperties.Broker(0, url))))
        .hasMessage("flowpipe.server.flow-control.brokers[1].node-id must be a node id >= 0 listed once, was 0");
  }
}
