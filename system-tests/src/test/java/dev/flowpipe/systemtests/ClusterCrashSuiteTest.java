package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The cluster crash suite, short: three node processes (three partitions, replication 3, one shared store) under the
 * mixed load; the leader of partition 1 (as a rule node 0, whose gateway the clients use: they move to another node)
 * killed with SIGKILL, a new leader takes over and exports, and the killed node restarts and rejoins. The read model must be what the clients know and exactly that of one clean
 * pass over every record recorded on any node, and each node's web app must serve what the store holds.
 */
class ClusterCrashSuiteTest {

  @Test
  void leadersKilledUnderLoadFailOverAndTheReadModelIsThatOfOneCleanPassThroughEveryWebApp() throws Exception {
    Path root = Path.of(System.getProperty("flowpipe.project.root", "..")).toAbsolutePath();

    ClusterCrashReport report = ClusterCrashSuite.run(root, CrashSettings.clusterTest(1, 20261129),
        System.out::println);

    CrashReport crash = report.crash();
    // the run did what it says: a failover, every partition recorded from its start, a load worth comparing
    assertThat(report.failovers()).hasSize(1).allSatisfy(failover -> {
      assertThat(failover.newLeader()).isNotEqualTo(failover.killedNode());
      assertThat(failover.exportingResumed()).as("the new leader exports: %s", failover).isTrue();
    });
    assertThat(crash.recorded()).hasSize(3).allSatisfy(file -> assertThat(file.firstPosition()).isEqualTo(1));
    assertThat(crash.clientOracle().instances()).as("instances the clients know").isGreaterThan(20);
    assertThat(crash.clientOracle().incidents()).as("incidents raised").isPositive();
    assertThat(crash.cleanPass().documentsCompared()).isGreaterThan(200);
    SoftAssertions.assertSoftly(soft -> {
      CrashAssertions.readModelIsExact(soft, crash, 3);
      soft.assertThat(report.webApps()).hasSize(3);
      for (WebAppCheck.Result webApp : report.webApps()) {
        soft.assertThat(webApp.differences()).as("node %d's web app against the store (%d differences):%n%s",
            webApp.node(), webApp.differenceCount(), CrashAssertions.firstLines(webApp.differences())).isEmpty();
        soft.assertThat(webApp.clientMismatches()).as("node %d's web app against what the clients know:%n%s",
            webApp.node(), CrashAssertions.firstLines(webApp.clientMismatches())).isEmpty();
      }
    });
  }
}
