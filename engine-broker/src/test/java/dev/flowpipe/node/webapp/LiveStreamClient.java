package dev.flowpipe.node.webapp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A push client of the live stream beside the browser: reads {@code /ui/live} line by line and notes each event's
 * arrival (nanoTime) and id, so a test knows independently of the page when the read model moved.
 */
final class LiveStreamClient implements AutoCloseable {

  /** One {@code positions} event: when it arrived (System.nanoTime) and its id. */
  record Event(long arrivedNanos, String id) {}

  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private final Thread reader;

  LiveStreamClient(String baseUrl) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/ui/live"))
        .header("Accept", "text/event-stream").build();
    reader = Thread.ofPlatform().daemon().name("live-stream-client").start(() -> {
      try {
        HttpResponse<java.io.InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
        String name = null;
        String id = null;
        String line;
        while ((line = lines.readLine()) != null) {
          if (line.startsWith("event:")) {
            name = line.substring(6).trim();
          } else if (line.startsWith("id:")) {
            id = line.substring(3).trim();
          } else if (line.isEmpty()) {
            if ("positions".equals(name)) {
              events.add(new Event(System.nanoTime(), id));
            }
            name = null;
            id = null;
          }
        }
      } catch (IOException e) {
        // closed
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }

  List<Event> events() {
    return List.copyOf(events);
  }

  @Override
  public void close() {
    // cancels the stream's exchange, which ends the reader's readLine; closing the reader here would wait for its lock,
    // which readLine holds until the next line arrives (a keep-alive, seconds away), and HttpClient.close() waits for
    // the exchange to end, which a stream does only at the server's stream timeout
    http.shutdownNow();
    reader.interrupt();
  }
}
