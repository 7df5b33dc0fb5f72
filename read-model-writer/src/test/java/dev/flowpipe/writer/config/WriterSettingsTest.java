package dev.flowpipe.writer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.schema.store.StoreConnection;
import dev.flowpipe.writer.batch.BulkFlushPolicy;
import dev.flowpipe.settings.SettingRules;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WriterSettingsTest {

  private static Map<String, Object> arguments(String... keysAndValues) {
    Map<String, Object> args = new HashMap<>();
    args.put(WriterSettings.URL, "http://127.0.0.1:9200");
    for (int i = 0; i < keysAndValues.length; i += 2) {
      args.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return args;
  }

  @Nested
  class FromTheExportersArguments {

    @Test
    void absentKeysTakeTheDefaultsWrittenInTheReadme() {
      WriterSettings settings = WriterSettings.fromArguments(arguments());

      assertThat(settings.indexPrefix()).isEqualTo("flowpipe");
      assertThat(settings.flushPolicy())
          .isEqualTo(new BulkFlushPolicy(Duration.ofMillis(100), 1000, 20L * 1024 * 1024));
      assertThat(settings.bulkRefresh()).isTrue();
      assertThat(settings.bulksInFlight()).isEqualTo(1);
      assertThat(settings.variableValueLimit()).isEqualTo(8191);
      assertThat(settings.recentDocuments()).isEqualTo(10_000);
      assertThat(settings.retryBackoff()).isEqualTo(Duration.ofMillis(100));
      assertThat(settings.maxRetryBackoff()).isEqualTo(Duration.ofSeconds(10));
      assertThat(settings.indexLayout().refreshInterval()).isEqualTo("1s");
    }

    @Test
    void absentStoreTimeoutsAreTheConnectionsOwnDefaults() {
      StoreConnection store = WriterSettings.fromArguments(arguments()).store();

      assertThat(store.connectTimeout()).isEqualTo(StoreConnection.DEFAULT_CONNECT_TIMEOUT);
      assertThat(store.requestTimeout()).isEqualTo(StoreConnection.DEFAULT_REQUEST_TIMEOUT);
    }

    @Test
    void durationsAndSizesReadAsSpringWritesThem() {
      WriterSettings settings = WriterSettings.fromArguments(arguments(WriterSettings.BULK_DELAY, "PT0.25S",
          WriterSettings.BULK_MEMORY_LIMIT, "64KB", WriterSettings.REQUEST_TIMEOUT, "2m"));

      assertThat(settings.flushPolicy().delay()).isEqualTo(Duration.ofMillis(250));
      assertThat(settings.flushPolicy().memoryLimitBytes()).isEqualTo(64 * 1024);
      assertThat(settings.store().requestTimeout()).isEqualTo(Duration.ofMinutes(2));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "bulk-size, 0, bulk-size must be >= 1, was 0",
        "bulk-delay, -5ms, bulk-delay must be a positive duration, was -5ms",
        "bulk-memory-limit, 12, bulk-memory-limit must be at least 1KB, was 12 bytes",
        "bulks-in-flight, 5, bulks-in-flight must be between 1 and 4, was 5",
        "recent-documents, -1, recent-documents must be >= 0, was -1",
        "retry-backoff, 0ms, retry-backoff must be a positive duration, was 0ms",
        "max-retry-backoff, 50ms, max-retry-backoff must be >= retry-backoff",
        "connect-timeout, soon, connect-timeout must be a duration such as 100ms, 1s or PT0.25S, was 'soon'"})
    void aBadValueFailsNamingItsKeyAndValue(String key, String value, String message) {
      assertThatThrownBy(() -> WriterSettings.fromArguments(arguments(key, value)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(message);
    }

    @Test
    void theUrlIsRequired() {
      assertThatThrownBy(() -> WriterSettings.fromArguments(Map.of()))
          .hasMessageContaining("url is required");
    }

    @Test
    void thePasswordIsNotPrinted() {
      WriterSettings settings = WriterSettings.fromArguments(
          arguments(WriterSettings.USERNAME, "writer", WriterSettings.PASSWORD, "s3cret-value"));

      assertThat(settings.toString()).contains("writer").doesNotContain("s3cret-value");
    }
  }

  @Nested
  class UnderAPrefix {

    private final StoreConnection target = StoreConnection.of("http://127.0.0.1:9200");

    @Test
    void theSameKeysAreReadUnderThePrefixAndNamedWithItInMessages() {
      SettingValues values = new SettingValues(Map.of("flowpipe.importer.bulk-size", "40"), "flowpipe.importer.");

      assertThat(WriterSettings.fromArguments(values, target).flushPolicy().size()).isEqualTo(40);
      assertThatThrownBy(() -> WriterSettings.fromArguments(
          new SettingValues(Map.of("flowpipe.importer.bulk-size", 0), "flowpipe.importer."), target))
          .hasMessage("flowpipe.importer.bulk-size must be >= 1, was 0");
    }
  }

  @Nested
  class TheBulkRules {

    @Test
    void nameTheCallersKeys() {
      var keys = new BulkFlushPolicy.Keys("flowpipe.exporter.bulk.delay", "flowpipe.exporter.bulk.size",
          "flowpipe.exporter.bulk.memory-limit");

      assertThatThrownBy(() -> BulkFlushPolicy.checked(keys, Duration.ofMillis(100), 0, 4096))
          .hasMessage("flowpipe.exporter.bulk.size must be >= 1, was 0");
    }
  }

  @Nested
  class DurationsWritten {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"PT0.02S, 20ms", "PT1S, 1s", "PT-0.005S, -5ms", "PT0S, 0ms", "PT0.0000005S, PT0.0000005S"})
    void readBackAsTheSameDuration(String iso, String text) {
      Duration duration = Duration.parse(iso);

      assertThat(SettingRules.print(duration)).isEqualTo(text);
      assertThat(DurationText.parse("key", text)).isEqualTo(duration);
    }
  }
}
