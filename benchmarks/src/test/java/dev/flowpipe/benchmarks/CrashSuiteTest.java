package dev.flowpipe.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The crash suite, short: a node process with two partitions killed three times with SIGKILL under the mixed load and
 * restarted on its data; its read model must be what the clients know and exactly that of one clean pass over every
 * record. Fails on any difference, naming each.
 */
class CrashSuiteTest {

  @Test
  void aNodeKilledThreeTimesUnderLoadEndsWithTheReadModelOfOneCleanPass() throws Exception {
    Path root = Path.of(System.getProperty("flowpipe.project.root", "..")).toAbsolutePath();

    CrashReport report = CrashSuite.run(root, CrashSettings.test(3, 2, 20261124), System.out::println);

    // the run did what it says: three kills, both partitions recorded from their start, a load worth comparing
    assertThat(report.restartSeconds()).hasSize(3);
    assertThat(report.recorded()).hasSize(2).allSatisfy(file -> assertThat(file.firstPosition()).isEqualTo(1));
    assertThat(report.clientOracle().instances()).as("instances the clients know").isGreaterThan(20);
    assertThat(report.clientOracle().incidents()).as("incidents raised").isPositive();
    assertThat(report.cleanPass().documentsCompared()).isGreaterThan(200);
    SoftAssertions.assertSoftly(soft -> {
      soft.assertThat(report.exporterCaughtUp()).as("the node's exporter acknowledged every record it takes")
          .isTrue();
      soft.assertThat(report.cleanPass().differences())
          .as("read model against one clean pass (%d lost, %d extra, %d duplicated, %d different):%n%s",
              report.cleanPass().lost(), report.cleanPass().extra(), report.cleanPass().duplicated(),
              report.cleanPass().different(), firstLines(report.cleanPass().differences()))
          .isEmpty();
      soft.assertThat(report.exportPositions()).as("export-position marks cover every document, pass no acknowledgement")
          .hasSize(2).allMatch(CrashReport.ExportPosition::sound);
      soft.assertThat(report.clientOracle().mismatches())
          .as("read model against what the clients know:%n%s", firstLines(report.clientOracle().mismatches()))
          .isEmpty();
    });
  }

  private static String firstLines(List<?> items) {
    return items.stream().limit(40).map(Object::toString).collect(Collectors.joining("\n"));
  }
}
