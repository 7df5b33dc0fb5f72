package dev.flowpipe.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A self-contained HTML report: headings, text, tables and time-series charts drawn as inline SVG, so the page opens
 * anywhere without a network or a script library.
 */
public final class HtmlReport {

  /** One line of a chart. */
  public record Series(String name, double[] x, double[] y) {}

  /** A labelled stretch of the x axis (a phase of the run), shaded behind the lines. */
  public record Band(String label, double from, double to) {}

  private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
  private static final int WIDTH = 900;
  private static final int HEIGHT = 260;
  private static final int LEFT = 70;
  private static final int RIGHT = 20;
  private static final int TOP = 20;
  private static final int BOTTOM = 40;

  private final StringBuilder body = new StringBuilder();
  private final String title;

  public HtmlReport(String title) {
    this.title = title;
  }

  public HtmlReport heading(String text) {
    body.append("<h2>").append(escape(text)).append("</h2>\n");
    return this;
  }

  public HtmlReport paragraph(String text) {
    body.append("<p>").append(escape(text)).append("</p>\n");
    return this;
  }

  public HtmlReport table(List<String> header, List<List<String>> rows) {
    body.append("<table><tr>");
    header.forEach(h -> body.append("<th>").append(escape(h)).append("</th>"));
    body.append("</tr>\n");
    for (List<String> row : rows) {
      body.append("<tr>");
      row.forEach(cell -> body.append("<td>").append(escape(cell)).append("</td>"));
      body.append("</tr>\n");
    }
    body.append("</table>\n");
    return this;
  }

  /** A line chart of the series over a shared x axis (seconds), with the bands shaded behind. */
  public HtmlReport chart(String chartTitle, String yLabel, List<Series> series, List<Band> bands) {
    return chart(chartTitle, yLabel, "s", series, bands);
  }

  /** A line chart of the series over a shared x axis in {@code xUnit}, with the bands shaded behind. */
  public HtmlReport chart(String chartTitle, String yLabel, String xUnit, List<Series> series, List<Band> bands) {
    double minX = Double.MAX_VALUE;
    double maxX = -Double.MAX_VALUE;
    double maxY = 0;
    for (Series s : series) {
      for (int i = 0; i < s.x().length; i++) {
        minX = Math.min(minX, s.x()[i]);
        maxX = Math.max(maxX, s.x()[i]);
        if (!Double.isNaN(s.y()[i])) {
          maxY = Math.max(maxY, s.y()[i]);
        }
      }
    }
    if (minX >= maxX) {
      maxX = minX + 1;
    }
    maxY = niceCeiling(maxY);
    double plotW = WIDTH - LEFT - RIGHT;
    double plotH = HEIGHT - TOP - BOTTOM;
    final double x0 = minX;
    final double xSpan = maxX - minX;
    final double ySpan = maxY;
    java.util.function.DoubleUnaryOperator px = x -> LEFT + (x - x0) / xSpan * plotW;
    java.util.function.DoubleUnaryOperator py = y -> TOP + plotH - y / ySpan * plotH;

    body.append("<h3>").append(escape(chartTitle)).append("</h3>\n");
    body.append(String.format(Locale.ROOT, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%n",
        WIDTH, HEIGHT + 20, WIDTH, HEIGHT + 20));
    int band = 0;
    for (Band b : bands) {
      double from = px.applyAsDouble(Math.max(b.from(), minX));
      double to = px.applyAsDouble(Math.min(b.to(), maxX));
      body.append(String.format(Locale.ROOT,
          "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>"
              + "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#555\">%s</text>%n",
          from, TOP, Math.max(0, to - from), plotH, band++ % 2 == 0 ? "#f4f4f4" : "#e8eef6", from + 3, TOP + 10,
          escape(b.label())));
    }
    for (int i = 0; i <= 4; i++) {
      double y = maxY * i / 4;
      double yy = py.applyAsDouble(y);
      body.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ccc\"/>"
              + "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>%n",
          LEFT, yy, WIDTH - RIGHT, yy, LEFT - 5, yy + 4, number(y)));
    }
    for (int i = 0; i <= 6; i++) {
      double x = minX + (maxX - minX) * i / 6;
      body.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s %s"
          + "</text>%n", px.applyAsDouble(x), HEIGHT - BOTTOM + 16, number(x), escape(xUnit)));
    }
    body.append(String.format(Locale.ROOT,
        "<text x=\"14\" y=\"%d\" font-size=\"11\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">%s</text>%n",
        TOP + (int) plotH / 2, TOP + (int) plotH / 2, escape(yLabel)));
    int colour = 0;
    int legendX = LEFT;
    for (Series s : series) {
      String c = COLOURS[colour++ % COLOURS.length];
      StringBuilder points = new StringBuilder();
      for (int i = 0; i < s.x().length; i++) {
        if (Double.isNaN(s.y()[i])) {
          continue;
        }
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px.applyAsDouble(s.x()[i]),
            py.applyAsDouble(s.y()[i])));
      }
      body.append(String.format(Locale.ROOT,
          "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>%n", c, points));
      if (s.x().length <= 30) { // few points (steps of a ramp, rounds): mark each, so a single point shows too
        for (int i = 0; i < s.x().length; i++) {
          if (!Double.isNaN(s.y()[i])) {
            body.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n",
                px.applyAsDouble(s.x()[i]), py.applyAsDouble(s.y()[i]), c));
          }
        }
      }
      body.append(String.format(Locale.ROOT,
          "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"3\" fill=\"%s\"/>"
              + "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>%n",
          legendX, HEIGHT + 2, c, legendX + 16, HEIGHT + 7, escape(s.name())));
      legendX += 30 + 7 * s.name().length();
    }
    body.append("</svg>\n");
    return this;
  }

  public void write(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + escape(title)
        + "</title><style>body{font-family:sans-serif;max-width:960px;margin:20px auto;color:#222}"
        + "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;"
        + "text-align:right}th{background:#f0f0f0}h3{margin-bottom:2px}</style></head><body>\n<h1>"
        + escape(title) + "</h1>\n" + body + "</body></html>\n");
  }

  private static double niceCeiling(double value) {
    if (value <= 0) {
      return 1;
    }
    double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
    for (double step : new double[] {1, 2, 2.5, 5, 10}) {
      if (step * magnitude >= value) {
        return step * magnitude;
      }
    }
    return 10 * magnitude;
  }

  private static String number(double value) {
    return Math.abs(value - Math.rint(value)) < 1e-9
        ? String.valueOf((long) Math.rint(value))
        : String.format(Locale.ROOT, "%.1f", value);
  }

  public static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
