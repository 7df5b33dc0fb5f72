package dev.flowpipe.node.readmodel;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A test webhook endpoint on the JDK's HTTP server: records every POST with the time it arrived and checks its
 * signature itself (HMAC-SHA256 over {@code <timestamp>.<body>}, computed here, not by the code under test); answers
 * with the status the test sets, or holds the request until the test releases it (a hanging endpoint).
 */
final class WebhookReceiver implements AutoCloseable {

  /** One POST as it arrived. */
  record Received(String alertId, long timestamp, String signature, String body, boolean signatureValid,
      long arrivedMillis, int answered) {}

  private final String secret;
  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final List<String> arrived = new CopyOnWriteArrayList<>();
  private volatile int status = 200;
  private volatile CountDownLatch hold = new CountDownLatch(0);

  WebhookReceiver(String secret) {
    this.secret = secret;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(threads);
    server.createContext("/hook", exchange -> {
      long arrivedAt = System.currentTimeMillis();
      byte[] body = exchange.getRequestBody().readAllBytes();
      String timestamp = exchange.getRequestHeaders().getFirst("X-Flowpipe-Timestamp");
      String signature = exchange.getRequestHeaders().getFirst("X-Flowpipe-Signature");
      String alertId = exchange.getRequestHeaders().getFirst("X-Flowpipe-Alert-Id");
      arrived.add(String.valueOf(alertId));
      try {
        hold.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      int answer = status;
      received.add(new Received(alertId, timestamp == null ? -1 : Long.parseLong(timestamp), signature,
          new String(body, StandardCharsets.UTF_8), signature != null && timestamp != null
              && signature.equals(expected(timestamp, body)), arrivedAt, answer));
      exchange.sendResponseHeaders(answer, -1);
      exchange.close();
    });
    server.start();
  }

  private String expected(String timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
      return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
  }

  void answer(int status) {
    this.status = status;
  }

  /** Holds every request until {@link #release()}. */
  void hang() {
    hold = new CountDownLatch(1);
  }

  void release() {
    hold.countDown();
  }

  /** The alert ids of every POST that arrived, answered or still held. */
  List<String> arrived() {
    return List.copyOf(arrived);
  }

  /** Every POST so far (a held one only once answered). */
  List<Received> received() {
    return List.copyOf(received);
  }

  /** The POSTs of one alert (its incident key). */
  List<Received> of(long incidentKey) {
    return received.stream().filter(r -> String.valueOf(incidentKey).equals(r.alertId())).toList();
  }

  @Override
  public void close() {
    release();
    server.stop(0);
    threads.shutdownNow();
  }
}
