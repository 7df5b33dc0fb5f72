package dev.flowpipe.node.readmodel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Our exporter's meters as a node publishes them on {@code /actuator/prometheus}: the broker's side of a run. */
final class ExporterMeters {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final String prometheusUrl;

  ExporterMeters(int httpPort) {
    this.prometheusUrl = "http://127.0.0.1:" + httpPort + "/actuator/prometheus";
  }

  /** Records of one value type the broker has handed to the exporter since the node started. */
  long recordsHandedOver(String valueType) {
    return (long) sum("flowpipe_exporter_records_total", "valueType=\"" + valueType + "\"");
  }

  /** The sum of a meter's samples whose labels contain {@code labelPart} (over partitions). */
  private double sum(String meter, String labelPart) {
    double sum = 0;
    for (String line : scrape().split("\n")) {
      if (line.startsWith(meter + "{") && line.contains(labelPart)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  private String scrape() {
    try {
      HttpResponse<String> response =
          HTTP.send(HttpRequest.newBuilder(URI.create(prometheusUrl)).build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(prometheusUrl + " answered " + response.statusCode());
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
