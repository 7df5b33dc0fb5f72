package dev.flowpipe.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.benchmarks.load.LoadSettings;
import dev.flowpipe.benchmarks.scenario.network.SlowNetwork;
import dev.flowpipe.benchmarks.scenario.operations.OperationsSettings;
import dev.flowpipe.benchmarks.scenario.ramp.ThroughputRamp;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The one command-line convention of {@code benchmarks/run}: {@code --name=value}, positional forms read by name. */
class ScenarioArgumentsTest {

  private static final List<String> NAMES = List.of("rate", "seconds", "modes", "node-arg", "delay");

  @Nested
  class Reading {

    @Test
    void positionalArgumentsStandForTheirNamesInOrder() {
      ScenarioArguments arguments = ScenarioArguments.positional("demo", List.of("25", "--modes=a,b", "90"),
          List.of("rate", "seconds"), null);

      assertThat(arguments.number("rate", 1)).isEqualTo(25);
      assertThat(arguments.integer("seconds", 1)).isEqualTo(90);
      assertThat(arguments.list("modes", List.of())).containsExactly("a", "b");
      arguments.requireAllKnown(NAMES);
    }

    @Test
    void anArgumentGivenMoreThanOnceIsReadInOrderWhereItMayRepeat() {
      ScenarioArguments arguments = new ScenarioArguments("demo", List.of("--node-arg=--a=1", "--node-arg=--b=2"),
          null);

      assertThat(arguments.texts("node-arg")).containsExactly("--a=1", "--b=2");
    }

    @Test
    void theScenariosThatTookPositionalArgumentsByHandReadThemByName() {
      assertThat(LoadSettings.parse(List.of("25", "90")))
          .isEqualTo(LoadSettings.parse(List.of("--rate=25", "--seconds=90")));
      assertThat(ThroughputRamp.Settings.parse(List.of("5", "15", "30")))
          .isEqualTo(ThroughputRamp.Settings.parse(List.of("--start=5", "--step=15", "--step-seconds=30")));
      assertThat(SlowNetwork.Settings.parse(List.of("10", "20", "50ms", "15")))
          .isEqualTo(SlowNetwork.Settings.parse(List.of("--rate=10", "--delay-seconds=20", "--delays=50ms",
              "--calm-seconds=15")));
      assertThat(OperationsSettings.parse(List.of("--poll=10ms")).pollInterval()).isEqualTo(Duration.ofMillis(10));
    }
  }

  @Nested
  class Errors {

    @Test
    void anUnknownNameIsRefusedNamingItTheScenarioAndTheKnownOnes() {
      ScenarioArguments arguments = new ScenarioArguments("demo", List.of("--colour=red"), null);

      assertThatThrownBy(() -> arguments.requireAllKnown(NAMES))
          .hasMessage("demo: unknown argument --colour=red (known: --rate, --seconds, --modes, --node-arg, --delay)");
      assertThatThrownBy(() -> ThroughputRamp.Settings.parse(List.of("--max-rat=5")))
          .hasMessageStartingWith("ramp: unknown argument --max-rat=5 (known: --start, --step, --step-seconds,");
    }

    @Test
    void aBadValueIsNamedWithItsArgumentAndTheScenario() {
      assertThatThrownBy(() -> new ScenarioArguments("demo", List.of("--rate=fast"), null).number("rate", 1))
          .hasMessage("demo: --rate must be a number, was 'fast'");
      assertThatThrownBy(() -> new ScenarioArguments("demo", List.of("--seconds=1.5"), null).integer("seconds", 1))
          .hasMessage("demo: --seconds must be a whole number, was '1.5'");
      assertThatThrownBy(() -> new ScenarioArguments("demo", List.of("--delay=soon"), null)
          .duration("delay", Duration.ZERO))
          .hasMessage("demo: --delay must be a duration like 50ms, 2s or 1m, was 'soon'");
      assertThatThrownBy(() -> SlowNetwork.Settings.parse(List.of("10", "twenty")))
          .hasMessage("slow-network: --delay-seconds must be a whole number, was 'twenty'");
    }

    @Test
    void aValueGivenTwiceWhereOneIsReadIsRefusedNamingBoth() {
      assertThatThrownBy(() -> new ScenarioArguments("demo", List.of("--rate=1", "--rate=2"), null).number("rate", 0))
          .hasMessage("demo: --rate given 2 times, was ['1', '2']");
    }

    @Test
    void aBareWordWhereNoPositionalArgumentIsLeftIsRefusedNamingIt() {
      assertThatThrownBy(() -> ScenarioArguments.positional("demo", List.of("1", "2", "3"), List.of("rate", "seconds"),
          null))
          .hasMessage("demo: at most 2 positional arguments (rate, seconds), then --name=value; was '3'");
      assertThatThrownBy(() -> OperationsSettings.parse(List.of("100")))
          .hasMessage("operations: arguments are --name=value, was '100'");
    }
  }
}
