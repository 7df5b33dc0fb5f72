package dev.flowpipe.testsupport;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A reverse proxy on loopback in front of a real store, standing in for what a test needs the store to be: secured
 * (only the right basic-auth credentials pass, 401 with a challenge otherwise, as a secured OpenSearch answers), or
 * limited in request size (413 above a body size, as {@code http.max_content_length} does).
 */
public final class StoreProxy implements AutoCloseable {

  private static final Set<String> HOP_BY_HOP =
      Set.of("connection", "content-length", "host", "transfer-encoding", "upgrade", "expect", "keep-alive");

  private final HttpServer server;
  private final java.util.concurrent.ExecutorService executor = Executors.newFixedThreadPool(4);
  private final HttpClient client = HttpClient.newHttpClient();
  private final String target;
  private final String expected;
  private volatile int maxBodyBytes = Integer.MAX_VALUE;
  private volatile int maxSearchSize = Integer.MAX_VALUE;
  private volatile boolean down;
  private volatile boolean halfBulks;
  private volatile java.util.Random failingBulks;
  private volatile double failingShare;
  private volatile double bulkOperationsPerSecond;
  private final Object throttle = new Object();
  private long throttledUntilNanos;
  private final AtomicReference<HeldBulk> nextHeld = new AtomicReference<>();
  private final AtomicReference<HeldMatch> nextHeldMatch = new AtomicReference<>();
  private final java.util.Queue<String> searches = new java.util.concurrent.ConcurrentLinkedQueue<>();
  private final java.util.Queue<AnsweredSearch> answeredSearches = new java.util.concurrent.ConcurrentLinkedQueue<>();
  private volatile boolean recordingSearches;
  private final java.util.Map<String, java.util.concurrent.atomic.LongAdder> requests =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** A request the proxy keeps from the store until released (or failed). */
  public static class HeldRequest {
    final CountDownLatch arrived = new CountDownLatch(1);
    final CountDownLatch released = new CountDownLatch(1);
    volatile boolean fail;
    volatile String path;

    /** Waits (up to 30 s) until the held request has reached the proxy; false if none did. */
    public boolean awaitArrival() throws InterruptedException {
      return awaitArrival(Duration.ofSeconds(30));
    }

    /** Waits up to {@code timeout} until the held request has reached the proxy; false if none did. */
    public boolean awaitArrival(Duration timeout) throws InterruptedException {
      return arrived.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The held request's path, once it has arrived. */
    public String path() {
      return path;
    }

    /** Forwards the held request to the store. */
    public void release() {
      released.countDown();
    }

    /** Answers the held request with 503 instead, without forwarding it: the store never sees it. */
    public void fail() {
      fail = true;
      released.countDown();
    }
  }

  /** A bulk request the proxy keeps from the store until released. */
  public static final class HeldBulk extends HeldRequest {

  }

  /** Lets requests through only with these credentials; null credentials let every request through. */
  public StoreProxy(String targetUrl, String username, String password) throws IOException {
    this.target = targetUrl;
    this.expected = username == null
        ? null
        : "Basic " + Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** From now on, answers 413 to bulk requests whose body is larger than this. */
  public StoreProxy limitBodyTo(int bytes) {
    this.maxBodyBytes = bytes;
    return this;
  }

  /**
   * From now on, answers 413 to searches asking for more than {@code documents} hits, as a store does whose answer
   * would be too large.
   */
  public StoreProxy limitSearchSizeTo(int documents) {
    this.maxSearchSize = documents;
    return this;
  }

  /** While down, answers every request with 503 and forwards nothing: a store that is unavailable. */
  public StoreProxy down(boolean down) {
    this.down = down;
    return this;
  }

  /**
   * From now on (or until switched off), forwards only the first half of each bulk's operations and then answers
   * 503: a bulk the store applied in part, as when a node fails in the middle of one.
   */
  public StoreProxy applyHalfOfEachBulk(boolean on) {
    this.halfBulks = on;
    return this;
  }

  /**
   * From now on, answers 503 without forwarding to this share of bulk requests, drawn from {@code random} (null or a
   * share of 0 switches it off): a store whose bulks fail now and then, so a later bulk can succeed where an earlier
   * one failed.
   */
  public StoreProxy failBulksAtRandom(java.util.Random random, double share) {
    this.failingShare = share;
    this.failingBulks = random;
    return this;
  }

  private boolean failThisBulk() {
    java.util.Random random = failingBulks;
    if (random == null || failingShare <= 0) {
      return false;
    }
    synchronized (random) {
      return random.nextDouble() < failingShare;
    }
  }

  /**
   * From now on, passes bulk requests at no more than this many operations per second, one after another (each waits
   * its share of time before it is forwarded): a store that absorbs writes slowly. 0 switches the throttle off, and
   * the bulks waiting for their share pass at once: the store has recovered.
   */
  public StoreProxy throttleBulksTo(double operationsPerSecond) {
    synchronized (throttle) {
      this.bulkOperationsPerSecond = operationsPerSecond;
      if (operationsPerSecond <= 0) {
        throttledUntilNanos = 0;
      }
      throttle.notifyAll();
    }
    return this;
  }

  /**
   * Keeps the next bulk request from the store until {@link HeldBulk#release()}: a bulk that is slow for as long as a
   * test needs. Other requests, later bulks included, pass meanwhile.
   */
  public HeldBulk holdNextBulk() {
    HeldBulk held = new HeldBulk();
    nextHeld.set(held);
    return held;
  }

  /**
   * Keeps the next request with this method whose path matches {@code pathPattern} (whole) from the store until
   * {@link HeldRequest#release()} or {@link HeldRequest#fail()}: a test can stop a client exactly before a given step
   * reaches the store (e.g. an index deletion), and kill it there. Other requests pass meanwhile.
   */
  public HeldRequest holdNext(String method, String pathPattern) {
    HeldRequest held = new HeldRequest();
    nextHeldMatch.set(new HeldMatch(method, java.util.regex.Pattern.compile(pathPattern), held));
    return held;
  }

  private record HeldMatch(String method, java.util.regex.Pattern path, HeldRequest held) {}

  /** Waits until a held request is let go; true when it must be answered 503 and not forwarded. */
  private static boolean holdUntilLetGo(HeldRequest held, String path) throws InterruptedException {
    held.path = path;
    held.arrived.countDown();
    held.released.await();
    return held.fail;
  }

  /**
   * Withdraws a {@link #holdNextBulk()} that no bulk has met yet; false when one already has, which the caller then
   * has to release or fail.
   */
  public boolean cancelHold() {
    return nextHeld.getAndSet(null) != null;
  }

  private void awaitBulkBudget(byte[] body) throws InterruptedException {
    double rate = bulkOperationsPerSecond;
    if (rate <= 0) {
      return;
    }
    long operations = new String(body, StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).count() / 2;
    synchronized (throttle) {
      long now = System.nanoTime();
      long start = Math.max(now, throttledUntilNanos);
      throttledUntilNanos = start + (long) (operations / rate * 1e9);
      long due = throttledUntilNanos;
      // waits its share, unless the throttle is switched off meanwhile
      for (long left = due - now; left > 0 && bulkOperationsPerSecond > 0; left = due - System.nanoTime()) {
        throttle.wait(left / 1_000_000, (int) (left % 1_000_000));
      }
    }
  }

  /**
   * The requests received since the start or the last {@link #resetRequestCounts()}, by method and the path's first
   * segment that names a store operation ({@code POST _search}, {@code GET _doc}, {@code POST _bulk}; {@code index}
   * for a path without one): what a client of the store asked of it.
   */
  public java.util.Map<String, Long> requestCounts() {
    java.util.Map<String, Long> counts = new java.util.TreeMap<>();
    requests.forEach((kind, count) -> counts.put(kind, count.sum()));
    return counts;
  }

  /**
   * From now on (or until switched off), keeps each search request that passes as {@code "<path> <body>"}: what a
   * client asked the store for, e.g. which ids a query named. Switching it on forgets the earlier ones; switching it
   * off keeps them.
   */
  public StoreProxy recordSearches(boolean on) {
    if (on) {
      searches.clear();
      answeredSearches.clear();
    }
    recordingSearches = on;
    return this;
  }

  /** The search requests kept since {@link #recordSearches} was switched on, in order. */
  public java.util.List<String> searches() {
    return java.util.List.copyOf(searches);
  }

  /**
   * A recorded search with the store's answer to it.
   *
   * @param request {@code "<path> <body>"}, as {@link #searches()} gives it
   * @param answer the store's answer body as it passed
   */
  public record AnsweredSearch(String request, String answer) {}

  /** The recorded searches with their answers, in the order the answers passed: what the store sent back. */
  public java.util.List<AnsweredSearch> answeredSearches() {
    return java.util.List.copyOf(answeredSearches);
  }

  public void resetRequestCounts() {
    requests.clear();
  }

  private static String requestKind(HttpExchange exchange) {
    for (String segment : exchange.getRequestURI().getPath().split("/")) {
      if (segment.startsWith("_")) {
        return exchange.getRequestMethod() + " " + segment;
      }
    }
    return exchange.getRequestMethod() + " index";
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      requests.computeIfAbsent(requestKind(exchange), kind -> new java.util.concurrent.atomic.LongAdder()).increment();
      if (expected != null && !expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"store\"");
        byte[] body = "{\"error\":\"unauthorized\"}".getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(401, body.length);
        exchange.getResponseBody().write(body);
        return;
      }
      byte[] requestBody = exchange.getRequestBody().readAllBytes();
      String recorded = null;
      if (recordingSearches && exchange.getRequestURI().getPath().endsWith("/_search")) {
        recorded = exchange.getRequestURI().getPath() + " " + new String(requestBody, StandardCharsets.UTF_8);
        searches.add(recorded);
      }
      if (down) {
        exchange.sendResponseHeaders(503, -1);
        return;
      }
      if (maxSearchSize < Integer.MAX_VALUE && exchange.getRequestURI().getPath().endsWith("/_search")
          && searchSize(requestBody) > maxSearchSize) {
        exchange.sendResponseHeaders(413, -1);
        return;
      }
      if (requestBody.length > maxBodyBytes && exchange.getRequestURI().getPath().endsWith("/_bulk")) {
        exchange.sendResponseHeaders(413, -1);
        return;
      }
      String path = exchange.getRequestURI().getPath();
      HeldMatch match = nextHeldMatch.get();
      if (match != null && match.method().equals(exchange.getRequestMethod()) && match.path().matcher(path).matches()
          && nextHeldMatch.compareAndSet(match, null) && holdUntilLetGo(match.held(), path)) {
        exchange.sendResponseHeaders(503, -1);
        return;
      }
      if (path.endsWith("/_bulk")) {
        HeldBulk held = nextHeld.getAndSet(null);
        if (held != null && holdUntilLetGo(held, path)) {
          exchange.sendResponseHeaders(503, -1);
          return;
        }
        awaitBulkBudget(requestBody);
        if (failThisBulk()) {
          exchange.sendResponseHeaders(503, -1);
          return;
        }
      }
      boolean partial = halfBulks && exchange.getRequestURI().getPath().endsWith("/_bulk");
      if (partial) {
        requestBody = firstHalfOfOperations(requestBody);
      }
      HttpRequest.Builder forward =
          HttpRequest.newBuilder(URI.create(target + exchange.getRequestURI()))
              .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(requestBody));
      exchange.getRequestHeaders().forEach((name, values) -> {
        if (!HOP_BY_HOP.contains(name.toLowerCase()) && !"authorization".equalsIgnoreCase(name)) {
          values.forEach(value -> forward.header(name, value));
        }
      });
      HttpResponse<byte[]> response = client.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
      response.headers().map().forEach((name, values) -> {
        if (!HOP_BY_HOP.contains(name.toLowerCase()) && !name.startsWith(":")) {
          values.forEach(value -> exchange.getResponseHeaders().add(name, value));
        }
      });
      byte[] body = response.body();
      if (partial) {
        exchange.sendResponseHeaders(503, -1);
        return;
      }
      if (recorded != null) {
        answeredSearches.add(new AnsweredSearch(recorded, new String(body, StandardCharsets.UTF_8)));
      }
      exchange.sendResponseHeaders(response.statusCode(), body.length == 0 ? -1 : body.length);
      if (body.length > 0) {
        exchange.getResponseBody().write(body);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int searchSize(byte[] body) {
    var size = java.util.regex.Pattern.compile("\"size\"\\s*:\\s*(\\d+)").matcher(new String(body, StandardCharsets.UTF_8));
    return size.find() ? Integer.parseInt(size.group(1)) : 10;
  }

  /** Bulk bodies here are index operations: an action line and a document line each. */
  private static byte[] firstHalfOfOperations(byte[] body) {
    String[] lines = new String(body, StandardCharsets.UTF_8).split("\n");
    int operations = lines.length / 2;
    StringBuilder half = new StringBuilder();
    for (int i = 0; i < (operations / 2) * 2; i++) {
      half.append(lines[i]).append('\n');
    }
    return half.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow(); // the server leaves its executor running, which would keep a JVM such as the harness alive
  }
}
