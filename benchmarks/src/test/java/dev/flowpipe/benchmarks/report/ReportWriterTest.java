package dev.flowpipe.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Run(String mode, long p50Millis, Double rate, Long missing) {}

  record Typed(String scenario, int probes, List<Run> runs) {}

  @Nested
  class AsJson {

    @Test
    void keepsTheKeysInTheOrderAddedAndIntegralNumbersIntegral(@TempDir Path dir) throws Exception {
      Report report = Report.describing("a tiny run");
      report.body().figure("probes", 20).figure("meanInstancesPerSecond", 12.5)
          .section("storeSearchMillis").figure("p50", 44L, Unit.MILLIS).figure("p99", 99L, Unit.MILLIS);
      report.body().figures("perRound", List.of(1.0, 2.5), Unit.PER_SECOND).flag("passed", true);
      Path file = dir.resolve("r.json");

      ReportWriter.write(report, file);

      // an independent reader of the file: plain Jackson, no report types
      String text = java.nio.file.Files.readString(file);
      assertThat(text).containsSubsequence("\"scenario\"", "\"probes\" : 20,", "\"meanInstancesPerSecond\" : 12.5",
          "\"storeSearchMillis\"", "\"p50\" : 44", "\"p99\" : 99", "\"perRound\"", "1.0", "2.5", "\"passed\" : true");
      Map<String, Object> read = new ObjectMapper().readValue(text,
          new com.fasterxml.jackson.core.type.TypeReference<java.util.LinkedHashMap<String, Object>>() {});
      assertThat(read.keySet()).containsExactly("scenario", "probes", "meanInstancesPerSecond", "storeSearchMillis",
          "perRound", "passed");
    }

    @Test
    void aTypedRecordIsWrittenAsJacksonWritesItHonouringItsAnnotations() throws Exception {
      Typed typed = new Typed("typed run", 3, List.of(new Run("ours", 41, 2.0, null), new Run("noop", 40, null, 7L)));

      String written = ReportWriter.text(Report.of(typed));

      String jackson = new ObjectMapper().enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
          .writeValueAsString(typed);
      assertThat(written).isEqualTo(jackson);
    }

    @Test
    void theDatedReportAddsDateAndMachineAfterTheFigures() {
      Report report = Report.describing("x");
      report.body().figure("probes", 1);

      Map<String, Object> tree = ReportWriter.tree(ReportWriter.dated(report, LocalDate.of(2026, 11, 27)));

      assertThat(tree.keySet()).containsExactly("scenario", "probes", "date", "machine");
      assertThat(tree.get("date")).isEqualTo("2026-11-27");
      assertThat(report.body().values()).doesNotContainKey("date");
    }
  }

  @Nested
  class AsMarkdown {

    @Test
    void givesFiguresWithTheirUnitsAndAListOfFlatSectionsAsATable() {
      Typed typed = new Typed("typed run", 3, List.of(new Run("ours", 41, 2.0, null), new Run("noop", 40, null, 7L)));

      String markdown = ReportWriter.markdown(Report.of(typed));

      assertThat(markdown).startsWith("# typed run\n");
      assertThat(markdown).contains("- probes: 3\n");
      assertThat(markdown).contains("## runs\n");
      assertThat(markdown).contains("| mode | p50Millis | rate | missing |");
      assertThat(markdown).contains("| ours | 41 ms | 2 |  |");
      assertThat(markdown).contains("| noop | 40 ms |  | 7 |");
    }

    @Test
    void namesTheUnitOfANestedFigureByItsEnclosingKey() {
      Report report = Report.describing("x");
      report.body().section("webappApiMillis").figure("p50", 12L).figure("p99", 30.25);

      String markdown = ReportWriter.markdown(Report.of(Section.of(ReportWriter.tree(report))));

      assertThat(markdown).contains("## webappApiMillis\n\n- p50: 12 ms\n- p99: 30.25 ms\n");
    }

    @Test
    void tellsKilobytesFromBytesByTheKey() {
      Report report = Report.describing("x");
      report.body().figure("diskWriteKilobytes", 5620L).figure("mergedBytes", 142850L);

      assertThat(ReportWriter.markdown(report)).contains("- diskWriteKilobytes: 5620 KiB\n",
          "- mergedBytes: 142850 B\n");
    }
  }

  @Nested
  class Wrapping {

    @Test
    void aReportOrASectionBuiltAlreadyIsTakenAsItIs() throws Exception {
      Report built = Report.describing("built");
      built.body().figure("probes", 3);

      assertThat(Report.of(built)).isSameAs(built);
      assertThat(ReportWriter.text(Report.of(built.body()))).isEqualTo(ReportWriter.text(built));
    }
  }

  @Nested
  class Verdict {

    @Test
    void onlyAnExplicitPassedFalseFails() {
      Report passed = Report.describing("x");
      passed.body().flag(Report.PASSED, true);
      Report failed = Report.describing("x");
      failed.body().flag(Report.PASSED, false);

      assertThat(Report.describing("no verdict").failed()).isFalse();
      assertThat(passed.failed()).isFalse();
      assertThat(failed.failed()).isTrue();
    }
  }
}
