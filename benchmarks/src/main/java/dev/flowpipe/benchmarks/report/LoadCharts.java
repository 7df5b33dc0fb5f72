package dev.flowpipe.benchmarks.report;

import dev.flowpipe.benchmarks.report.HtmlReport.Band;
import dev.flowpipe.benchmarks.report.HtmlReport.Series;
import dev.flowpipe.benchmarks.load.LoadWindow;
import dev.flowpipe.benchmarks.load.LoadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** The time-series charts of load windows (one run, or the steps of a ramp laid end to end). */
public final class LoadCharts {

  private LoadCharts() {}

  /** One window on the report's time axis, with the rate offered while it ran. */
  public record Point(double seconds, double offered, LoadWindow window) {}

  public static List<Point> points(LoadResult result, double offsetSeconds) {
    List<Point> points = new ArrayList<>();
    for (LoadWindow w : result.windows()) {
      boolean loading = w.second() < result.loadSeconds();
      points.add(new Point(offsetSeconds + w.second(), loading ? result.settings().ratePerSecond() : 0, w));
    }
    return points;
  }

  public static void add(HtmlReport html, List<Point> points, List<Band> bands) {
    double[] x = points.stream().mapToDouble(Point::seconds).toArray();
    html.chart("Throughput: instances offered, created (accepted) and completed per second", "instances/s", List.of(
        series("offered", x, points, Point::offered),
        series("created", x, points, p -> p.window().created()),
        series("completed", x, points, p -> p.window().completed())), bands);
    html.chart("Process execution latency (create sent to completed answer), per second of completion", "ms",
        List.of(
            series("p50", x, points, p -> orNaN(p.window().latencyP50())),
            series("p90", x, points, p -> orNaN(p.window().latencyP90())),
            series("p99", x, points, p -> orNaN(p.window().latencyP99())),
            series("max", x, points, p -> orNaN(p.window().latencyMax()))), bands);
    html.chart("Exporter lag: age of the oldest record not yet durable in the store", "ms", List.of(
        series("lag age", x, points, p -> orNaN(p.window().lagAgeMillis()))), bands);
    html.chart("Exporter lag in records", "records", List.of(
        series("lag records", x, points, p -> orNaN(p.window().lagRecords()))), bands);
    html.chart("Backpressure: share of commands rejected (RESOURCE_EXHAUSTED)", "% of commands", List.of(
        series("rejected", x, points, p -> 100 * p.window().rejectedShare())), bands);
  }

  private static double orNaN(long value) {
    return value < 0 ? Double.NaN : value;
  }

  private static Series series(String name, double[] x, List<Point> points, ToDoubleFunction<Point> value) {
    return new Series(name, x, points.stream().mapToDouble(value).toArray());
  }
}
