package dev.flowpipe.benchmarks;

import dev.flowpipe.benchmarks.report.Report;
import dev.flowpipe.benchmarks.report.ReportWriter;
import dev.flowpipe.benchmarks.report.ReportPages;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

/**
 * The entry point of {@code benchmarks/run}: finds the scenario by name in {@link Scenarios}, runs it and writes its
 * report under {@code benchmarks/results/} (JSON, markdown, and the HTML page where the scenario has one).
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println(
          "usage: benchmarks/run " + String.join("|", Scenarios.names()) + " [options]\n"
              + "       benchmarks/run html overhead|availability|exporter-throughput|exporter-slow-link|slow-store|search-latency|crash|cluster-crash  (page from the saved JSON)");
      System.exit(2);
    }
    Path root = Path.of(System.getProperty("flowpipe.project.root", ".")).toAbsolutePath();
    if (args[0].equals("html")) {
      htmlFromSavedReport(root, args.length > 1 ? args[1] : "");
      return;
    }
    Report report = ReportWriter.dated(Scenarios.named(args[0]).run(root, args), LocalDate.now());
    Path out = root.resolve("benchmarks/results/" + args[0] + ".json");
    ReportWriter.write(report, out);
    ReportWriter.writeMarkdown(report, root.resolve("benchmarks/results/" + args[0] + ".md"));
    // their windows (load, ramp), differences (crash) or lag samples (import-restart) make the JSON long; the summary
    // was printed
    if (!List.of("load", "ramp", "crash", "cluster-crash", "slow-network", "import-restart").contains(args[0])) {
      System.out.println(ReportWriter.text(report));
    }
    System.out.println("report: " + out);
    if (ReportPages.SCENARIOS.contains(args[0])) {
      ReportPages.write(args[0], ReportWriter.tree(report), root.resolve("benchmarks/results/" + args[0] + ".html"));
    }
    // the crash suite found a difference (the report says which); otherwise exit even if a library left a thread
    System.exit(report.failed() ? 1 : 0);
  }

  /** Draws the HTML page of a JSON-only scenario again from its saved report. */
  public static void htmlFromSavedReport(Path root, String scenario) throws Exception {
    if (!ReportPages.SCENARIOS.contains(scenario)) {
      throw new IllegalArgumentException("html: scenario must be one of " + ReportPages.SCENARIOS + ", was '"
          + scenario + "'");
    }
    Path json = root.resolve("benchmarks/results/" + scenario + ".json");
    ReportPages.write(scenario, ReportWriter.read(json),
        root.resolve("benchmarks/results/" + scenario + ".html"));
  }
}
