package dev.flowpipe.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class LoadSettingsTest {

  @Nested
  class CommandLine {

    @Test
    void readsRateSecondsAndEveryOption() {
      LoadSettings s = LoadSettings.parse(List.of("25", "90", "--payload=1KB", "--worker-delay=50ms",
          "--in-flight=200", "--gateway=10.0.0.5:26500", "--http=http://10.0.0.5:8080"));

      assertThat(s.ratePerSecond()).isEqualTo(25);
      assertThat(s.duration()).isEqualTo(Duration.ofSeconds(90));
      assertThat(s.payloadBytes()).isEqualTo(1024);
      assertThat(s.workerDelay()).isEqualTo(Duration.ofMillis(50));
      assertThat(s.maxInFlight()).isEqualTo(200);
      assertThat(s.gateway()).isEqualTo(URI.create("http://10.0.0.5:26500"));
      assertThat(s.nodeHttp()).isEqualTo(URI.create("http://10.0.0.5:8080"));
    }

    @Test
    void withoutArgumentsTheHarnessStartsANodeWithTheDefaults() {
      assertThat(LoadSettings.parse(List.of())).isEqualTo(LoadSettings.defaults());
      assertThat(LoadSettings.defaults().gateway()).isNull();
    }

    @Test
    void sizesAndDurationsHaveUnits() {
      assertThat(LoadSettings.bytes("payload", "512")).isEqualTo(512);
      assertThat(LoadSettings.bytes("payload", "2mb")).isEqualTo(2 * 1024 * 1024);
      assertThat(LoadSettings.duration("worker-delay", "1.5s")).isEqualTo(Duration.ofMillis(1500));
      assertThat(LoadSettings.duration("worker-delay", "PT0.2S")).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void aBadValueIsNamedInTheError() {
      assertThatThrownBy(() -> LoadSettings.parse(List.of("fast")))
          .hasMessage("load: --rate must be a number, was 'fast'");
      assertThatThrownBy(() -> LoadSettings.parse(List.of("--payload=1GBX")))
          .hasMessage("load: --payload must be a size like 512, 1KB or 2MB, was '1GBX'");
      assertThatThrownBy(() -> LoadSettings.parse(List.of("--worker-delay=soon")))
          .hasMessage("load: --worker-delay must be a duration like 50ms, 2s or 1m, was 'soon'");
      assertThatThrownBy(() -> LoadSettings.parse(List.of("--colour=red")))
          .hasMessageStartingWith("load: unknown argument --colour=red");
    }

    @Test
    void anHttpAddressAloneIsRefusedBecauseTheHarnessStartsItsOwnNodeThen() {
      assertThatThrownBy(() -> LoadSettings.parse(List.of("--http=localhost:8080")))
          .hasMessageContaining("--http (http://localhost:8080)").hasMessageContaining("--gateway");
    }
  }

  @Nested
  class Validation {

    @Test
    void rateMustBePositive() {
      assertThatThrownBy(() -> LoadSettings.defaults().withRate(-3))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("rate must be > 0 process instances/s, was -3.0");
    }

    @Test
    void durationMustBePositive() {
      assertThatThrownBy(() -> LoadSettings.defaults().withDuration(Duration.ZERO))
          .hasMessage("duration must be > 0, was PT0S");
    }

    @Test
    void payloadMustFitInAMessage() {
      assertThatThrownBy(() -> LoadSettings.parse(List.of("--payload=5MB")))
          .hasMessage("payload must be between 0 and 3145728 bytes, was 5242880 bytes");
    }

    @Test
    void inFlightMustBeAtLeastOne() {
      assertThatThrownBy(() -> LoadSettings.parse(List.of("--in-flight=0")))
          .hasMessage("max in flight must be >= 1, was 0");
    }

    @Test
    void aModelFileMustExist() {
      assertThatThrownBy(() -> LoadSettings.parse(List.of("--model=/no/such/model.bpmn")))
          .hasMessage("model must be a readable .bpmn file, was /no/such/model.bpmn (no such file)");
    }

    @Test
    void workerDelayMustNotBeNegative() {
      assertThatThrownBy(() -> new LoadSettings(1, Duration.ofSeconds(1), 0, null, Duration.ofMillis(-1), 1, null,
          null)).hasMessage("worker delay must be >= 0, was PT-0.001S");
    }
  }

  @Nested
  class Model {

    @Test
    void aModelFileGetsAWorkerForEachJobType() {
      LoadModel model = LoadModel.fromFile(resource("models/two-tasks.bpmn"));

      assertThat(model.processId()).isEqualTo("order");
      assertThat(model.jobTypes()).containsExactly("reserve", "ship");
    }

    @Test
    void aJobTypeExpressionIsRefusedNamingIt() {
      assertThatThrownBy(() -> LoadModel.fromFile(resource("models/expression-type.bpmn")))
          .hasMessageContaining("job type must be a fixed string").hasMessageContaining("'=taskType'");
    }

    @Test
    void theBuiltInModelHasOneServiceTask() {
      assertThat(LoadModel.builtIn().jobTypes()).containsExactly(LoadModel.BUILT_IN_JOB_TYPE);
    }

    private Path resource(String name) {
      try {
        return Path.of(getClass().getClassLoader().getResource(name).toURI());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
