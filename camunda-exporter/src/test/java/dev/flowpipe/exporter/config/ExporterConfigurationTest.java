package dev.flowpipe.exporter.config;

import dev.flowpipe.writer.config.WriterSettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExporterConfigurationTest {

  private static Map<String, Object> args(String key, Object value) {
    Map<String, Object> args = new HashMap<>();
    args.put(WriterSettings.URL, "http://127.0.0.1:9200");
    args.put(key, value);
    return args;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"20ms, PT0.02S", "1s, PT1S", "PT0.25S, PT0.25S", "5m, PT5M"})
  void bulkDelayAcceptsSimpleAndIsoDurations(String text, String iso) {
    var config = ExporterConfiguration.fromArguments(args(WriterSettings.BULK_DELAY, text));

    assertThat(config.writer().flushPolicy().delay()).isEqualTo(Duration.parse(iso));
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
    "bulk-delay, soon",
    "bulk-delay, 0ms",
    "bulk-size, 0",
    "bulk-size, many",
    "bulk-refresh, sometimes",
    "bulks-in-flight, 0",
    "bulks-in-flight, 5",
    "bulks-in-flight, two",
    "index-prefix, Has Spaces",
    "retry-backoff, -1s",
    "on-foreign-store, ignore",
    "url, ftp://x",
  })
  void aBadArgumentFailsNamingItsKeyAndValue(String key, String value) {
    assertThatThrownBy(() -> ExporterConfiguration.fromArguments(args(key, value)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(key)
        .satisfies(e -> assertThat(e.getMessage()).containsAnyOf(value, Duration.ZERO.toString(), "PT-1S"));
  }

  @Test
  void theUrlIsRequired() {
    assertThatThrownBy(() -> ExporterConfiguration.fromArguments(Map.of())).hasMessageContaining("url is required");
  }
}
