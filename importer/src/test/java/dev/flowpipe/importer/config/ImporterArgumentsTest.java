package dev.flowpipe.importer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImporterArgumentsTest {

  @TempDir Path temp;

  @Test
  void argumentsOverrideSystemPropertiesWhichOverrideTheFile() throws Exception {
    Path yaml = Files.writeString(temp.resolve("importer.yaml"), """
        flowpipe:
          store:
            url: http://ignored:9200
          importer:
            source-url: http://from-file:9200
            source-prefix: legacy
            page-size: 200
        """);
    ImporterArguments arguments = ImporterArguments.parse(
        List.of("--config=" + yaml, "--flowpipe.importer.page-size=300", "--until-caught-up"),
        Map.of("flowpipe.importer.source-prefix", "from-system", "unrelated", "x"));

    assertThat(arguments.properties()).containsExactlyInAnyOrderEntriesOf(Map.of(
        "flowpipe.importer.source-url", "http://from-file:9200",
        "flowpipe.importer.source-prefix", "from-system",
        "flowpipe.importer.page-size", "300"));
    assertThat(arguments.untilCaughtUp()).isTrue();
    ImporterSettings settings = ImporterSettings.fromProperties(arguments.properties(), null);
    assertThat(settings.pageSize()).isEqualTo(300);
    assertThat(settings.sourcePrefix()).isEqualTo("from-system");
  }

  @Test
  void flatKeysInTheFileWorkToo() throws Exception {
    Path yaml = Files.writeString(temp.resolve("flat.yaml"), "flowpipe.importer.index-prefix: imported\n");
    assertThat(ImporterArguments.parse(List.of("--config=" + yaml), Map.of()).properties())
        .containsEntry("flowpipe.importer.index-prefix", "imported");
  }

  @Test
  void anArgumentThatIsNoImporterSettingFailsNamingIt() {
    assertThatThrownBy(() -> ImporterArguments.parse(List.of("--flowpipe.store.url=http://x:9200"), Map.of()))
        .hasMessageContaining("'--flowpipe.store.url=http://x:9200'");
    assertThatThrownBy(() -> ImporterArguments.parse(List.of("http://x:9200"), Map.of()))
        .hasMessageContaining("'http://x:9200'");
  }

  @Test
  void aMisspelledKeyFailsNamingIt() {
    ImporterArguments arguments = ImporterArguments.parse(
        List.of("--flowpipe.importer.source-url=http://x:9200", "--flowpipe.importer.page-sise=10"), Map.of());
    assertThatThrownBy(() -> ImporterSettings.fromProperties(arguments.properties(), null))
        .hasMessageContaining("flowpipe.importer.page-sise is not a setting of the importer");
  }

  @Test
  void aFileThatIsNotYamlFailsNamingIt() throws Exception {
    Path bad = Files.writeString(temp.resolve("bad.yaml"), "flowpipe: [unclosed");
    assertThatThrownBy(() -> ImporterArguments.parse(List.of("--config=" + bad), Map.of()))
        .hasMessageContaining("--config=" + bad);
    assertThatThrownBy(() -> ImporterArguments.parse(List.of("--config=" + temp.resolve("missing.yaml")), Map.of()))
        .hasMessageContaining("missing.yaml");
  }
}
