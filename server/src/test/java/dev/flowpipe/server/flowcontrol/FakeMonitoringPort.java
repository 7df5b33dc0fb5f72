package dev.flowpipe.server.flowcontrol;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A broker's monitoring port as far as the server uses it, our own fake: {@code GET /actuator/prometheus} answers the
 * text it is given, {@code POST /actuator/flowControl} records the body and answers with the status it is given,
 * {@code GET /actuator/flowControl} answers the limits per partition it is given.
 */
final class FakeMonitoringPort implements AutoCloseable {

  private final HttpServer server;
  final List<String> posted = new CopyOnWriteArrayList<>();
  volatile String prometheus = "";
  volatile int postStatus = 200;
  /** What {@code GET /actuator/flowControl} answers: the 8.6 endpoint's shape, one entry per partition. */
  volatile String flowControl = "{}";

  FakeMonitoringPort() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/actuator/prometheus", exchange -> {
      byte[] body = prometheus.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.createContext("/actuator/flowControl", exchange -> {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      boolean post = "POST".equals(exchange.getRequestMethod());
      if (post && "application/json".equals(exchange.getRequestHeaders().getFirst("Content-Type"))) {
        posted.add(body);
      }
      byte[] answer = (post ? "{}" : flowControl).getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(post ? postStatus : 200, answer.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answer);
      }
    });
    server.start();
  }

  /** Makes {@code GET /actuator/flowControl} report these write limits (null: none) for partitions 1, 2, ... */
  void holding(Integer... limits) {
    StringBuilder json = new StringBuilder("{");
    for (int i = 0; i < limits.length; i++) {
      json.append(i == 0 ? "" : ",").append('"').append(i + 1).append("\":{\"writeRateLimit\":")
          .append(limits[i] == null ? "{\"enabled\":false,\"limit\":0}"
              : "{\"enabled\":true,\"limit\":" + limits[i] + "}").append('}');
    }
    flowControl = json.append('}').toString();
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
