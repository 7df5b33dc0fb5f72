package dev.flowpipe.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SettingRulesTest {

  @Nested
  class APositiveDuration {

    @Test
    void isReturnedAsItIs() {
      assertThat(SettingRules.positive("flowpipe.x.timeout", Duration.ofMillis(1))).isEqualTo(Duration.ofMillis(1));
    }

    @ParameterizedTest
    @CsvSource({"0, 0ms", "-5, -5ms", "-1000, -1s"})
    void isRefusedWhenZeroOrNegativeNamingTheKeyAndTheValue(long millis, String printed) {
      assertThatThrownBy(() -> SettingRules.positive("flowpipe.x.timeout", Duration.ofMillis(millis)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("flowpipe.x.timeout must be a positive duration, was " + printed);
    }

    @Test
    void isRefusedWhenMissing() {
      assertThatThrownBy(() -> SettingRules.positive("flowpipe.x.timeout", null))
          .hasMessage("flowpipe.x.timeout must be a positive duration, was null");
    }
  }

  @Nested
  class ADurationPrints {

    @ParameterizedTest
    @CsvSource({"600000, 10m", "90000, 90s", "5000, 5s", "250, 250ms", "0, 0ms", "-5, -5ms"})
    void asTheSettingsWriteIt(long millis, String printed) {
      assertThat(SettingRules.print(Duration.ofMillis(millis))).isEqualTo(printed);
    }

    @Test
    void belowAMillisecondAsIso8601() {
      assertThat(SettingRules.print(Duration.ofNanos(1_500_000))).isEqualTo("PT0.0015S");
    }
  }

  @Nested
  class ASecret {

    @Test
    void printsAsTheMaskWhenSetAndAsNullWhenNot() {
      assertThat(Secrets.mask("hunter2")).isEqualTo("****");
      assertThat(Secrets.mask(null)).isNull();
    }
  }
}
