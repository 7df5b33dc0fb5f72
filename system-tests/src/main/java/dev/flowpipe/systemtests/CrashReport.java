package dev.flowpipe.systemtests;

import java.util.List;

/**
 * What a crash-suite run did and found ({@code results/crash.json}).
 *
 * @param killedAtSeconds when each kill came, from the start of the load
 * @param restartSeconds from each kill to the restarted node being ready
 * @param load what the clients did and know ({@link ClientOracle#summary})
 * @param recorded what the recording exporter wrote, per partition
 * @param exporterCaughtUp whether the node's exporter acknowledged every record it takes before the comparison
 * @param clientOracle the read model against what the clients know
 * @param cleanPass the read model against one clean pass over the recorded records
 * @param exportPositions the node's export-position marks, checked against its documents and acknowledgements
 * @param passed no mismatch, no difference, sound export positions, and the exporter caught up
 */
public record CrashReport(String scenario, long seed, int kills, int partitions, List<Double> killedAtSeconds,
    List<Double> restartSeconds, ClientOracle.Summary load, List<Recorded> recorded, boolean exporterCaughtUp,
    ClientCheck clientOracle, CleanPassCheck cleanPass, List<ExportPosition> exportPositions, boolean passed) {

  /**
   * The node's export-position mark of one partition after the run (-1: none), which must cover every document of
   * the partition (at least the highest position a document reflects) and not pass what the exporter acknowledged.
   */
  public record ExportPosition(int partition, long mark, long highestDocumentPosition, long acknowledged) {
    boolean sound() {
      return mark >= highestDocumentPosition && mark <= acknowledged;
    }
  }

  /** One partition's record file. */
  public record Recorded(int partition, long lines, long records, long repeats, long firstPosition, long lastPosition) {}

  public record ClientCheck(int instances, int instancesWithOneAllowedState, int variables, int incidents,
      int mismatchCount, List<ClientOracle.Mismatch> mismatches) {}

  /**
   * @param documentsCompared documents of the clean pass's read model
   * @param documentsInNode documents of the node's read model
   * @param differences each one, with the node run that wrote the record the node's document reflects
   */
  public record CleanPassCheck(long documentsCompared, long documentsInNode, long lost, long extra, long duplicated,
      long different, List<ReadModelDiff.IndexCounts> indices, List<Difference> differences) {}

  /**
   * One difference, named.
   *
   * @param writtenIn the node run that wrote the record the node's document reflects ("before kill 1", "after kill
   *     2"), or "-" where that is unknown
   */
  public record Difference(String index, String id, String field, String expected, String actual, long expectedPosition,
      long actualPosition, String writtenIn) {}

  /**
   * The report of a run from its parts; it passed if the check passed and {@code otherChecksPassed} (what a scenario
   * checks besides, e.g. the web apps of a cluster).
   */
  public static CrashReport of(String scenario, CrashSettings settings, CrashTimeline timeline, ClientOracle oracle,
      long commandsHeldBack, CrashCheck.Outcome outcome, boolean otherChecksPassed) {
    ClientOracle.Summary loadSummary = oracle.summary(commandsHeldBack, settings.rates());
    ReadModelDiff.Result diff = outcome.diff();
    List<Difference> differences = diff.differences().stream().map(d -> new Difference(d.index(), d.id(), d.field(),
        d.expected(), d.actual(), d.expectedPosition(), d.actualPosition(),
        timeline.writtenIn(d.id(), d.actualPosition(), outcome.recorded()))).toList();
    CleanPassCheck cleanPass = new CleanPassCheck(diff.compared(),
        diff.indices().stream().mapToLong(ReadModelDiff.IndexCounts::actual).sum(), diff.lost(), diff.extra(),
        diff.duplicated(), diff.different(), diff.indices(), differences);
    ClientOracle.Verdict verdict = outcome.verdict();
    ClientCheck client = new ClientCheck(verdict.instances(), verdict.instancesWithOneAllowedState(),
        verdict.variables(), verdict.incidents(), verdict.mismatches().size(), verdict.mismatches());
    List<Recorded> files = outcome.recorded().stream().map(r -> new Recorded(r.partition(), r.lines(), r.records(),
        r.repeats(), r.firstPosition(), r.lastPosition())).toList();
    return new CrashReport(scenario, settings.seed(), settings.kills(), settings.partitions(),
        timeline.killedAtSeconds(), timeline.recoverySeconds(), loadSummary, files, outcome.caughtUp(), client,
        cleanPass, outcome.exportPositions(), outcome.passed() && otherChecksPassed);
  }

  public long recordsRecorded() {
    return recorded.stream().mapToLong(Recorded::records).sum();
  }
}
