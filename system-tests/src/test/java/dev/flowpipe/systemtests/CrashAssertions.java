package dev.flowpipe.systemtests;

import java.util.List;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;

/** What every crash run must show, as soft assertions that name each difference. */
final class CrashAssertions {

  private CrashAssertions() {}

  /**
   * The exporter caught up, the read model equals the clean pass's and what the clients know, and each of the
   * {@code partitions} export-position marks is sound.
   */
  static void readModelIsExact(SoftAssertions soft, CrashReport report, int partitions) {
    soft.assertThat(report.exporterCaughtUp()).as("the exporter acknowledged every record it takes").isTrue();
    soft.assertThat(report.cleanPass().differences())
        .as("read model against one clean pass (%d lost, %d extra, %d duplicated, %d different):%n%s",
            report.cleanPass().lost(), report.cleanPass().extra(), report.cleanPass().duplicated(),
            report.cleanPass().different(), firstLines(report.cleanPass().differences()))
        .isEmpty();
    soft.assertThat(report.exportPositions()).as("export-position marks cover every document, pass no acknowledgement")
        .hasSize(partitions).allMatch(CrashReport.ExportPosition::sound);
    soft.assertThat(report.clientOracle().mismatches())
        .as("read model against what the clients know:%n%s", firstLines(report.clientOracle().mismatches()))
        .isEmpty();
  }

  static String firstLines(List<?> items) {
    return items.stream().limit(40).map(Object::toString).collect(Collectors.joining("\n"));
  }
}
