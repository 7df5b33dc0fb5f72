package dev.flowpipe.systemtests;

import java.util.List;

/**
 * What a cluster crash run did and found ({@code results/cluster-crash.json}): the crash suite's report (its
 * {@code passed} includes the failovers and the web apps), each failover, and each node's web app against the store.
 *
 * @param gateway which node's gateway the clients used, and why
 */
public record ClusterCrashReport(CrashReport crash, String gateway, List<Failover> failovers,
    List<WebAppCheck.Result> webApps) {

  /**
   * One kill of a partition's leader.
   *
   * @param atSeconds when, from the start of the load
   * @param clientGatewayKilled whether the killed node was the clients' gateway (they moved to another node)
   * @param newLeaderAfterSeconds from the kill until the gateway named another leader of the partition
   * @param exportingResumedAfterSeconds from the kill until the new leader's exporter acknowledged a position past the
   *     last the killed leader had acknowledged (-1: not within 60 s)
   * @param rejoinedAfterSeconds from the kill until the restarted node showed with all its partitions, healthy, as
   *     leader or follower
   */
  public record Failover(int kill, double atSeconds, int partition, int killedNode, boolean clientGatewayKilled,
      int newLeader, double newLeaderAfterSeconds, double exportingResumedAfterSeconds, double rejoinedAfterSeconds) {

    boolean exportingResumed() {
      return exportingResumedAfterSeconds >= 0;
    }
  }

  public boolean passed() {
    return crash.passed();
  }
}
