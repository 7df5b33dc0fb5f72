package dev.flowpipe.benchmarks.scenario.scale;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.ReportWriter;
import dev.flowpipe.benchmarks.report.Section;
import dev.flowpipe.benchmarks.scenario.scale.RetentionCost.NodeStats;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The footprint and retention-cost reports keep the keys, nesting and figures that their saved results
 * ({@code benchmarks/results/footprint.json}, {@code retention-cost.json}) and {@code docs/measurements/} quote: the
 * expected JSON below is copied from those files, written by the scenarios before they built typed sections, and the
 * inputs are the counters that produced it.
 */
class ScaleReportShapeTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Nested
  class FootprintReport {

    @Test
    void givesTheSizesOfAnIndexWholeAndPerInstanceUnderTheSavedKeys() throws Exception {
      // given the _stats answer of our read model before its merge, 2,000 instances in it, and its live segments
      var stats = JSON.readTree("""
          {"_all": {"primaries": {"store": {"size_in_bytes": 12638067}, "docs": {"count": 56001},
            "segments": {"count": 7}}}}""");

      // when
      Section sizes = Footprint.sizes(stats, new Footprint.Segments(12657589, 4210), 2000);

      // then
      assertThat(written(sizes)).isEqualTo(compact("""
          {"storeBytes": 12638067, "liveSegmentBytes": 12657589, "deletedDocumentsHeld": 4210,
           "luceneDocuments": 56001, "segments": 7,
           "bytesPerInstance": 6319, "liveSegmentBytesPerInstance": 6328}"""));
      assertThat(ReportWriter.markdown(Report.of(sizes)))
          .contains("- storeBytes: 12638067 B", "- segments: 7\n", "- bytesPerInstance: 6319 B");
    }

    @Test
    void givesEachStockIndexItsStoreBytesAndDocumentsByName() throws Exception {
      // given two rows of _cat/indices, whose figures come as texts
      var rows = JSON.readTree("""
          [{"index": "zeebe-record_deployment_8.6.0_2026-11-27", "docs.count": "1", "pri.store.size": "12970"},
           {"index": "zeebe-record_job_8.6.0_2026-11-27", "docs.count": "12000", "pri.store.size": "989282"}]""");

      // when
      Section indices = Footprint.indices(rows);

      // then
      assertThat(written(indices)).isEqualTo(compact("""
          {"zeebe-record_deployment_8.6.0_2026-11-27": {"storeBytes": 12970, "documents": 1},
           "zeebe-record_job_8.6.0_2026-11-27": {"storeBytes": 989282, "documents": 12000}}"""));
    }
  }

  @Nested
  class RetentionCostReport {

    @Test
    void givesTheStoreCountersChangeWholeAndPerInstanceRemovedUnderTheSavedKeys() throws Exception {
      // given the node's counters before and after our sweep removed 10,000 instances in 4.4 s
      var before = new NodeStats(120_000, 300_000, 500_018,
          900_000, 7_000_000, 60_000_000);
      var after = new NodeStats(127_630, 305_620, 500_036,
          928_000, 7_142_850, 59_145_788);

      // when
      Section delta = after.minus(before, 10_000, 4.43);

      // then
      assertThat(written(delta)).isEqualTo(compact("""
          {"instancesRemoved": 10000, "seconds": 4.4, "storeCpuSeconds": 7.63, "documentsIndexed": 18,
           "documentsDeletedByIndexing": 28000, "mergedBytes": 142850, "diskWriteKilobytes": 5620,
           "storeBytesChange": -854212, "storeCpuMillisPerInstance": 0.763, "documentsIndexedPerInstance": 0.0,
           "mergedBytesPerInstance": 14, "diskWriteBytesPerInstance": 575}"""));
      assertThat(ReportWriter.markdown(Report.of(delta))).contains("- seconds: 4.4 s", "- storeCpuSeconds: 7.63 s",
          "- diskWriteKilobytes: 5620 KiB", "- storeCpuMillisPerInstance: 0.763 ms", "- mergedBytes: 142850 B",
          "- documentsIndexed: 18\n");
    }

    @Test
    void saysTheDiskWritesAreNotReportedWhereTheNodeGivesNone() throws Exception {
      // given a node without fs io_stats (read as -1)
      var before = new NodeStats(0, -1, 0, 0, 0, 0);
      var after = new NodeStats(2_000, -1, 10, 20, 300, 400);

      // when
      Section delta = after.minus(before, 10, 1.0);

      // then
      assertThat(written(delta)).isEqualTo(compact("""
          {"instancesRemoved": 10, "seconds": 1.0, "storeCpuSeconds": 2.0, "documentsIndexed": 10,
           "documentsDeletedByIndexing": 20, "mergedBytes": 300, "diskWriteKilobytes": "not reported",
           "storeBytesChange": 400, "storeCpuMillisPerInstance": 200.0, "documentsIndexedPerInstance": 1.0,
           "mergedBytesPerInstance": 30}"""));
    }

    @Test
    void leavesOutThePerInstanceFiguresWhenNothingWasRemoved() throws Exception {
      var stats = new NodeStats(0, 0, 0, 0, 0, 0);

      Section delta = stats.minus(stats, 0, 0.0);

      assertThat(JSON.readTree(written(delta)).fieldNames()).toIterable().containsExactly("instancesRemoved",
          "seconds", "storeCpuSeconds", "documentsIndexed", "documentsDeletedByIndexing", "mergedBytes",
          "diskWriteKilobytes", "storeBytesChange");
    }
  }

  /** The section as ReportWriter writes it, re-read and written on one line (key order kept). */
  private static String written(Section section) throws Exception {
    return compact(ReportWriter.text(Report.of(section)));
  }

  private static String compact(String json) throws Exception {
    return JSON.writeValueAsString(JSON.readTree(json));
  }
}
