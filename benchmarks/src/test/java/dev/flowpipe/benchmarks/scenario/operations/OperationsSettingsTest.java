package dev.flowpipe.benchmarks.scenario.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OperationsSettingsTest {

  @Test
  void readsEveryNamedSettingAndKeepsTheDefaultsOfTheOthers() {
    OperationsSettings s = OperationsSettings.parse(List.of("--operations=40", "--poll=10ms", "--batch=200",
        "--phase=20s"));

    assertThat(s.operationsPerMode()).isEqualTo(40);
    assertThat(s.pollInterval()).isEqualTo(Duration.ofMillis(10));
    assertThat(s.batchInstances()).isEqualTo(200);
    assertThat(s.loadPhase()).isEqualTo(Duration.ofSeconds(20));
    assertThat(s.backgroundRate()).isEqualTo(OperationsSettings.defaults().backgroundRate());
  }

  @Test
  void aBadValueIsRefusedNamingTheSettingAndTheValue() {
    assertThatThrownBy(() -> OperationsSettings.parse(List.of("--poll=fast")))
        .hasMessageContaining("--poll").hasMessageContaining("'fast'");
    assertThatThrownBy(() -> OperationsSettings.parse(List.of("--batch=0")))
        .hasMessageContaining("--batch").hasMessageContaining("was 0");
    assertThatThrownBy(() -> OperationsSettings.parse(List.of("--batches=5")))
        .hasMessageContaining("unknown argument --batches=5");
    assertThatThrownBy(() -> OperationsSettings.parse(List.of("100")))
        .hasMessageContaining("was '100'");
  }
}
