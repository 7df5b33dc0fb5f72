package dev.flowpipe.importer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ImporterSettingsTest {

  @Test
  void defaultsNeedOnlyTheSourceAndTheTargetIsTheSource() {
    ImporterSettings settings = ImporterSettings.fromProperties(Map.of(), "http://127.0.0.1:9200");
    assertThat(settings.enabled()).isFalse();
    assertThat(settings.sourcePrefix()).isEqualTo("zeebe-record");
    assertThat(settings.indexPrefix()).isEqualTo("flowpipe");
    assertThat(settings.target()).isEqualTo(settings.source());
    assertThat(settings.pageSize()).isEqualTo(1000);
    assertThat(settings.visibilityGrace()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void withoutAStoreItFailsNamingTheKey() {
    assertThatThrownBy(() -> ImporterSettings.fromProperties(Map.of(), null))
        .hasMessageContaining("flowpipe.importer.source-url");
  }

  @ParameterizedTest
  @CsvSource({
      "page-size, 0, flowpipe.importer.page-size must be between 1 and 10000, was 0",
      "page-size, many, flowpipe.importer.page-size must be a whole number, was 'many'",
      "visibility-grace, soon, flowpipe.importer.visibility-grace must be a duration",
      "poll-interval, 0ms, flowpipe.importer.poll-interval must be a positive duration",
      "source-prefix, zeebe_record, flowpipe.importer.source-prefix",
      "index-prefix, Upper, flowpipe.importer.index-prefix",
      "enabled, yes, flowpipe.importer.enabled must be true or false, was 'yes'",
      "bulk-memory-limit, 12, flowpipe.importer.bulk-memory-limit",
      "target-url, ftp://x, flowpipe.importer.target-url 'ftp://x' is not usable"})
  void aBadValueFailsNamingItsKeyAndValue(String key, String value, String message) {
    assertThatThrownBy(() -> ImporterSettings.fromProperties(
        Map.of("flowpipe.importer." + key, value), "http://127.0.0.1:9200"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void passwordsAreNotPrinted() {
    ImporterSettings settings = ImporterSettings.fromProperties(
        Map.of("flowpipe.importer.source-username", "u", "flowpipe.importer.source-password", "secret"),
        "http://127.0.0.1:9200");
    assertThat(settings.toString()).doesNotContain("secret");
  }
}
