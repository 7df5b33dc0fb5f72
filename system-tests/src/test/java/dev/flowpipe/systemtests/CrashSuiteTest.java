package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The crash suite, short: a node process with two partitions killed twice with SIGKILL under the mixed load and
 * restarted on its data (the second time a node that had already recovered once); its read model must be what the
 * clients know and exactly that of one clean pass over every record. Fails on any difference, naming each. The long
 * version, more kills and load: {@code benchmarks/run crash} (benchmarks/README, "The suite's long versions"); two
 * kills rather than three save a node restart (about 15 s) of the suite.
 */
class CrashSuiteTest {

  @Test
  void aNodeKilledTwiceUnderLoadEndsWithTheReadModelOfOneCleanPass() throws Exception {
    Path root = Path.of(System.getProperty("flowpipe.project.root", "..")).toAbsolutePath();

    CrashReport report = CrashSuite.run(root, CrashSettings.test(2, 2, 20261124), System.out::println);

    // the run did what it says: two kills, both partitions recorded from their start, a load worth comparing
    assertThat(report.restartSeconds()).hasSize(2);
    assertThat(report.recorded()).hasSize(2).allSatisfy(file -> assertThat(file.firstPosition()).isEqualTo(1));
    assertThat(report.clientOracle().instances()).as("instances the clients know").isGreaterThan(20);
    assertThat(report.clientOracle().incidents()).as("incidents raised").isPositive();
    assertThat(report.cleanPass().documentsCompared()).isGreaterThan(200);
    SoftAssertions.assertSoftly(soft -> CrashAssertions.readModelIsExact(soft, report, 2));
  }
}
