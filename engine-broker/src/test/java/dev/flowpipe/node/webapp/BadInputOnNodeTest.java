package dev.flowpipe.node.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.node.webapp.SharedWebappNode.Runs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A thousand malformed, oversized and hostile requests (the long version: {@code -Dflowpipe.bad-input.requests=3000},
 * see benchmarks/README.md) against the search, statistics, operations and batch APIs of a real node (real store, real
 * engine behind the gateway): each made invalid on purpose by the generator below (wrong
 * types, huge and non-finite numbers, deep nesting, unknown fields, unicode and control characters, lists and bodies
 * over the caps, bad cursors, negative and overflowing pages, keys of no partition, wrong content types and methods).
 * Every answer must be a 4xx problem+json, none a 5xx; afterwards the node is healthy, still answers a plain search,
 * and its heap after a collection has not grown beyond a few bodies' worth. No request names a key of the shared data:
 * keys are of no partition, or of partition 1 far beyond any counter the node reached, so nothing is changed.
 */
@ExtendWith(SharedWebappNode.class)
@ResourceLock(SharedWebappNode.LOCK)
class BadInputOnNodeTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private static final List<String> ENTITIES = List.of("process-definitions", "process-instances",
      "element-instances", "variables", "incidents", "jobs");
  private static final int REQUESTS = Integer.getInteger("flowpipe.bad-input.requests", 1_000);
  /** Request n is made from seed SEEDS + n whatever the count: a shorter run sends the first requests of a longer. */
  private static final long SEEDS = 90_000;
  private static final long BODY_CAP = 4L * 1024 * 1024;
  private static final String OVERSIZED = "protocol/oversized-body";

  /** A request made invalid on purpose, with what it tries (for the report). */
  record Bad(String kind, String method, String path, String contentType, String accept, byte[] body) {}

  @Test
  void everyHostileRequestIsA4xxProblemAndTheNodeStaysHealthyWithItsHeapBounded(Runs runs) throws Exception {
    String base = runs.baseUrl();
    long heapBefore = usedHeapAfterGc();

    Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
    Map<String, String> wrong = new ConcurrentHashMap<>();
    long start = System.nanoTime();
    ExecutorService clients = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> sent = new ArrayList<>();
      for (int i = 0; i < REQUESTS; i++) {
        int n = i;
        sent.add(clients.submit(() -> {
          // made when sent, not kept: the generator's bodies (some beyond the cap) must not fill this JVM's heap
          Bad bad = generate(new Random(SEEDS + n), n);
          HttpResponse<String> answer = send(base, bad);
          statuses.merge(answer.statusCode(), 1, Integer::sum);
          String problem = problemOf(answer);
          if (problem != null) {
            wrong.putIfAbsent(bad.kind() + " " + answer.statusCode(),
                bad.method() + " " + bad.path() + " " + preview(bad.body()) + " -> " + problem);
          }
        }));
      }
      for (Future<?> each : sent) {
        each.get();
      }
    } finally {
      clients.shutdownNow();
    }
    for (int i = 0; i < 3; i++) {
      String answer = declaredOversized(base, 50L * 1024 * 1024);
      statuses.merge(Integer.parseInt(answer.substring(9, 12)), 1, Integer::sum);
      if (!answer.startsWith("HTTP/1.1 413") || !answer.contains("application/problem+json")) {
        wrong.putIfAbsent("declared-50MB", answer);
      }
    }
    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    long heapAfter = usedHeapAfterGc();
    System.out.printf("bad-input run: %d requests in %d ms, statuses %s, used heap after GC %d MB before, %d MB"
        + " after%n", REQUESTS + 3, tookMillis, new TreeMap<>(statuses), heapBefore >> 20, heapAfter >> 20);

    assertThat(wrong).as("answers that are not a 4xx problem+json").isEmpty();
    assertThat(statuses.keySet()).allMatch(status -> status >= 400 && status < 500);
    assertThat(statuses.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(REQUESTS + 3);
    HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/actuator/health")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    assertThat(JSON.readTree(health.body()).path("status").asText()).isEqualTo("UP");
    assertThat(Http.post(base + "/v2/process-instances/search", "{\"filter\": {\"processDefinitionId\":"
        + " \"webapp-order\"}}").json().path("page").path("totalItems").asLong()).isGreaterThanOrEqualTo(3);
    // nothing of a request is kept: what grew is at most a few requests' bodies (the cap) still in young objects
    assertThat(heapAfter - heapBefore).as("heap growth in bytes").isLessThan(16 * BODY_CAP);
  }

  /** The problem of an answer that is not a 4xx problem+json, or null when it is one. */
  private static String problemOf(HttpResponse<String> answer) {
    int status = answer.statusCode();
    String type = answer.headers().firstValue("Content-Type").orElse("");
    if (status < 400 || status >= 500) {
      return "status " + status + ": " + preview(answer.body().getBytes(StandardCharsets.UTF_8));
    }
    if (!type.startsWith("application/problem+json")) {
      return "content type '" + type + "': " + preview(answer.body().getBytes(StandardCharsets.UTF_8));
    }
    try {
      JsonNode problem = JSON.readTree(answer.body());
      if (problem.path("status").asInt() != status || !problem.path("title").isTextual()
          || !problem.path("detail").isTextual() || !problem.path("instance").isTextual()) {
        return "not a complete problem: " + answer.body();
      }
    } catch (IOException e) {
      return "unreadable problem: " + answer.body();
    }
    return null;
  }

  private static HttpResponse<String> send(String base, Bad bad) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + bad.path())).timeout(Duration.ofSeconds(60))
        .method(bad.method(), bad.body() == null ? HttpRequest.BodyPublishers.noBody()
            : bad.kind().equals(OVERSIZED) // without a length (chunked): read until the cap, then refused
                ? HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(bad.body()))
                : HttpRequest.BodyPublishers.ofByteArray(bad.body()));
    if (bad.contentType() != null) {
      request.header("Content-Type", bad.contentType());
    }
    if (bad.accept() != null) {
      request.header("Accept", bad.accept());
    }
    try {
      return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(bad.kind() + ": " + bad.method() + " " + bad.path() + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A POST declaring a body of {@code bytes} of which only a few are sent: answered before the rest would be read. */
  private static String declaredOversized(String base, long bytes) throws IOException {
    URI uri = URI.create(base);
    try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(("POST /v2/process-instances/cancellation HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + bytes + "\r\n\r\n{\"filter\": {").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream read = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      int n;
      try {
        while ((n = in.read(buffer)) > 0) {
          read.write(buffer, 0, n);
          if (read.toString(StandardCharsets.UTF_8).contains("}")) {
            break;
          }
        }
      } catch (java.net.SocketException closed) {
        // closed after the answer, the body unread
      }
      return read.toString(StandardCharsets.UTF_8);
    }
  }

  private static long usedHeapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static String preview(byte[] body) {
    if (body == null) {
      return "(no body)";
    }
    String text = new String(body, 0, Math.min(body.length, 160), StandardCharsets.UTF_8);
    return body.length > 160 ? text + "... (" + body.length + " bytes)" : text;
  }

  // --- the generator: every request it makes is invalid by construction ---

  private static Bad generate(Random random, int i) {
    int pick = random.nextInt(100);
    if (pick < 45) {
      return search(random, i);
    }
    if (pick < 53) {
      return keyed(random);
    }
    if (pick < 60) {
      return statistics(random);
    }
    if (pick < 80) {
      return operation(random);
    }
    if (pick < 90) {
      return batch(random);
    }
    return protocol(random, i);
  }

  private static String entity(Random random) {
    return ENTITIES.get(random.nextInt(ENTITIES.size()));
  }

  private static Bad json(String kind, String method, String path, String body) {
    return new Bad(kind, method, path, "application/json", null, body.getBytes(StandardCharsets.UTF_8));
  }

  /** A search body invalid in one of many ways. */
  private static Bad search(Random random, int i) {
    String path = "/v2/" + entity(random) + "/search";
    List<Supplier<String[]>> cases = List.of(
        () -> new String[] {"not-an-object", pickOf(random, "[]", "[1,2]", "42", "\"text\"", "true", "-0.0e-999")},
        () -> new String[] {"unknown-part", "{\"" + hostileText(random) + "x\": {}}"},
        () -> new String[] {"filter-type", "{\"filter\": " + pickOf(random, "[]", "1", "\"x\"", "true") + "}"},
        () -> new String[] {"unknown-field", "{\"filter\": {\"" + hostileText(random) + "-nofield\": 1}}"},
        () -> new String[] {"unknown-operator", "{\"filter\": {\"tenantId\": {\"$" + hostileText(random) + "\": 1}}}"},
        () -> new String[] {"key-type", "{\"filter\": {\"" + keyField(path) + "\": " + pickOf(random, "1e400",
            "-1e400", "99999999999999999999999", "\"abc\"", "{\"$in\": \"x\"}", "true", "[1]", "{\"$gt\": {}}",
            "-5.5", "\"\\u0000\"") + "}}"},
        () -> new String[] {"non-finite", "{\"filter\": {\"" + keyField(path) + "\": " + pickOf(random, "NaN",
            "Infinity", "-Infinity", "0x1F", "01", ".5", "+1") + "}}"},
        () -> new String[] {"list-over-cap", "{\"filter\": {\"" + keyField(path) + "\": {\"" + pickOf(random, "$in",
            "$notIn") + "\": [" + IntStream.range(0, 1001 + random.nextInt(20_000)).mapToObj(Integer::toString)
            .collect(Collectors.joining(",")) + "]}}}"},
        () -> new String[] {"or-over-cap", "{\"filter\": {\"$or\": [" + IntStream.range(0, 51 + random.nextInt(500))
            .mapToObj(n -> "{\"tenantId\": \"t" + n + "\"}").collect(Collectors.joining(",")) + "]}}"},
        () -> new String[] {"or-malformed", "{\"filter\": {\"$or\": " + pickOf(random, "{}", "[1]",
            "[{\"$or\": [{}]}]", "\"x\"") + "}}"},
        () -> new String[] {"value-over-cap", "{\"filter\": {\"tenantId\": {\"$like\": \"*" + "a".repeat(4097
            + random.nextInt(100_000)) + "\"}}}"},
        () -> new String[] {"deep-nesting", "{\"filter\": " + "{\"$or\": [".repeat(200 + random.nextInt(3000))
            + "]}".repeat(10) + "}"},
        () -> new String[] {"deep-arrays", "{\"sort\": " + "[".repeat(1001 + random.nextInt(50_000)) + "}"},
        () -> new String[] {"sort-bad", "{\"sort\": " + pickOf(random, "{}", "[1]", "[{\"field\": 1}]",
            "[{\"field\": \"nofield\"}]", "[{\"field\": \"tenantId\", \"order\": \"sideways\"}]",
            "[{\"field\": \"tenantId\", \"x\": 1}]") + "}"},
        () -> new String[] {"sort-over-cap", "{\"sort\": [" + IntStream.range(0, 11 + random.nextInt(1000))
            .mapToObj(n -> "{\"field\": \"tenantId\"}").collect(Collectors.joining(",")) + "]}"},
        () -> new String[] {"page-bad", "{\"page\": " + pickOf(random, "{\"from\": -1}", "{\"from\": 2147483647,"
            + " \"limit\": 100}", "{\"from\": 9223372036854775807}", "{\"limit\": -1}", "{\"limit\": 1e9}",
            "{\"limit\": 100001}", "{\"from\": 1.5}", "{\"from\": \"0\"}", "{\"from\": 0, \"after\": \"x\"}",
            "{\"size\": 1}", "[]", "{\"from\": 9990, \"limit\": 11}") + "}"},
        () -> new String[] {"cursor-bad", "{\"page\": {\"" + pickOf(random, "after", "before") + "\": "
            + pickOf(random, "\"" + randomBase64(random) + "\"", "1", "{}", "\"" + hostileText(random) + "\"",
                "\"W10\"", "\"WyJ4Il0\"", "\"WzEsMiwzLDQsNSw2LDcsOCw5XQ\"", "\"" + "W".repeat(5000) + "\"") + "}}"},
        () -> new String[] {"consistency-bad", "{\"consistency\": " + pickOf(random, "{}", "[]",
            "{\"timeout\": \"-1s\", \"processInstanceKey\": \"1\"}", "{\"timeout\": 5}",
            "{\"positions\": []}", "{\"positions\": [{\"partitionId\": 0, \"position\": 1}]}",
            "{\"positions\": [{\"partitionId\": 1, \"position\": -1}]}", "{\"positions\": [{}]}",
            "{\"processInstanceKey\": \"abc\"}", "{\"x\": 1}", "{\"positions\": [" + IntStream.range(0, 65)
                .mapToObj(n -> "{\"partitionId\": 1, \"position\": 1}").collect(Collectors.joining(",")) + "]}")
            + "}"},
        () -> new String[] {"unicode-field", "{\"filter\": {\"\\ud800\\udc00\\u202e" + hostileText(random)
            + "\": \"\\u0007\"}}"},
        () -> new String[] {"truncated", "{\"filter\": {\"tenantId\": \"" + hostileText(random)});
    String[] generated = cases.get(random.nextInt(cases.size())).get();
    return json("search/" + generated[0], "POST", path, generated[1]);
  }

  private static String keyField(String path) {
    return switch (path.substring(4, path.length() - "/search".length())) {
      case "process-definitions" -> "processDefinitionKey";
      case "process-instances" -> "processInstanceKey";
      case "element-instances" -> "elementInstanceKey";
      case "variables" -> "variableKey";
      case "incidents" -> "incidentKey";
      default -> "jobKey";
    };
  }

  /** A key that is no key, or a key no entity of the shared data can have. */
  private static String badKey(Random random) {
    return pickOf(random, "1", "0", "-1", "abc", "1e5", "%20", "9223372036854775807",
        "99999999999999999999", Long.toString(3L << 51 | random.nextInt(1000)),
        Long.toString(1L << 51 | (1L << 50) | random.nextInt(1_000_000)), // partition 1, a counter never reached
        Long.toString(random.nextLong(1, 1L << 51)), // partition 0
        "%E2%80%AE" + random.nextInt(), "1;DROP", "0x10");
  }

  private static Bad keyed(Random random) {
    String key = badKey(random);
    String path = pickOf(random, "/v2/" + entity(random) + "/" + key, "/v2/process-definitions/" + key + "/xml",
        "/v2/process-instances/" + noKey(random) + "/statistics/element-instances", "/v2/batch-operations/" + key);
    return new Bad("get/bad-key", "GET", path, null, pickOf(random, null, "application/json",
        "application/problem+json", "*/*"), null);
  }

  /** Not a key at all (an unknown key's statistics are an empty list, not an error). */
  private static String noKey(Random random) {
    return pickOf(random, "-1", "abc", "1e5", "%20", "99999999999999999999", "%E2%80%AE7", "1;DROP", "0x10");
  }

  private static Bad statistics(Random random) {
    if (random.nextBoolean()) {
      return json("statistics/element", "POST", "/v2/process-definitions/" + noKey(random)
          + "/statistics/element-instances", pickOf(random, "{}", "{\"filter\": {\"state\": \"ACTIVE\"}}"));
    }
    return json("statistics/process", "POST", "/v2/process-definitions/statistics/process-instances",
        pickOf(random, "[]", "{\"x\": 1}", "{\"sort\": [{\"field\": \"nope\"}]}", "{\"page\": {\"from\": -3}}",
            "{\"page\": {\"limit\": 1e99}}", "{\"sort\": {}}", "{\"consistency\": {\"positions\": 1}}"));
  }

  private static Bad operation(Random random) {
    String key = badKey(random);
    return switch (random.nextInt(6)) {
      case 0 -> json("operation/cancel", "POST", "/v2/process-instances/" + key + "/cancellation",
          pickOf(random, "{}", "", "[]"));
      case 1 -> json("operation/resolve", "POST", "/v2/incidents/" + key + "/resolution", "{}");
      case 2 -> json("operation/job", "PATCH", "/v2/jobs/" + key, pickOf(random, "{}", "{\"changeset\": {}}",
          "{\"changeset\": {\"retries\": -1}}", "{\"changeset\": {\"retries\": 1e10}}",
          "{\"changeset\": {\"timeout\": \"x\"}}", "{\"changeset\": {\"retries\": 2}}", "[]"));
      case 3 -> json("operation/variables", "PUT", "/v2/element-instances/" + key + "/variables",
          pickOf(random, "{}", "{\"variables\": 3}", "{\"variables\": {\"" + hostileText(random) + "\": 1}}",
              "{\"variables\": {\"a\": 1}, \"local\": \"yes\"}", "{\"variables\": []}"));
      case 4 -> json("operation/create", "POST", "/v2/process-instances", pickOf(random, "{}", "[]", "7",
          "{\"processDefinitionId\": \"bad-input-none-" + random.nextInt(1000) + "\"}",
          "{\"processDefinitionKey\": \"" + key + "\"}", "{\"processDefinitionId\": 5}",
          "{\"processDefinitionId\": \"x\", \"processDefinitionKey\": \"1\"}",
          "{\"processDefinitionId\": \"x\", \"processDefinitionVersion\": 0}",
          "{\"processDefinitionId\": \"x\", \"variables\": [1]}"));
      default -> json("operation/message", "POST", "/v2/messages/publication", pickOf(random, "{}", "[]",
          "{\"name\": 5}", "{\"name\": \"\"}", "{\"name\": \"m\", \"timeToLive\": -1}",
          "{\"name\": \"m\", \"variables\": \"x\"}", "{\"name\": \"m\", \"timeToLive\": \"1s\"}"));
    };
  }

  private static Bad batch(Random random) {
    return switch (random.nextInt(3)) {
      case 0 -> json("batch/start", "POST", pickOf(random, "/v2/process-instances/cancellation",
          "/v2/process-instances/incident-resolution", "/v2/process-instances/migration",
          "/v2/process-instances/modification"), pickOf(random, "{}", "[]", "{\"filter\": 1}",
          "{\"filter\": {\"nofield\": 1}}", "{\"filter\": {\"processInstanceKey\": {\"$in\": [" + IntStream.range(0,
              1001).mapToObj(Integer::toString).collect(Collectors.joining(",")) + "]}}}",
          "{\"filter\": {\"state\": \"NOPE\"}}", "{\"filter\": {\"$or\": 3}}"));
      case 1 -> new Bad("batch/get", "GET", "/v2/batch-operations/" + badKey(random), null, null, null);
      default -> json("batch/items", "POST", pickOf(random, "/v2/batch-operation-items/search",
          "/v2/batch-operations/search"), pickOf(random, "{\"filter\": {\"batchOperationKey\": true}}", "[]",
          "{\"filter\": {\"batchOperationKey\": {\"$gt\": \"1\"}}}", "{\"filter\": {\"batchOperationKey\": \"1\", \"state\": \"x\"}}",
          "{\"filter\": {\"batchOperationKey\": \"1\"}, \"page\": {\"from\": 2147483647, \"limit\": 10}}",
          "{\"filter\": {\"batchOperationKey\": \"1\"}, \"page\": {\"limit\": \"ten\"}}"));
    };
  }

  /** Wrong methods, content types, accepted types and bodies beyond the cap. */
  private static Bad protocol(Random random, int i) {
    String search = "/v2/" + entity(random) + "/search";
    return switch (random.nextInt(6)) {
      // (not TRACE: Tomcat's connector refuses it with a bare 400 before any servlet or filter of the app runs)
      case 0 -> new Bad("protocol/method", pickOf(random, "DELETE", "PUT", "PATCH", "OPTIONS"), search,
          "application/json", null, "{}".getBytes(StandardCharsets.UTF_8));
      case 1 -> new Bad("protocol/content-type", "POST", search, pickOf(random, "text/plain", "application/xml",
          "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=nope",
          "image/png"), null, "{}".getBytes(StandardCharsets.UTF_8));
      case 2 -> new Bad("protocol/accept", "POST", search, "application/json", pickOf(random, "image/png",
          "text/csv", "application/xml"), "{\"filter\": 1}".getBytes(StandardCharsets.UTF_8));
      case 3 -> new Bad("protocol/unknown-path", pickOf(random, "GET", "POST"), "/v2/" + hostileText(random)
          .replaceAll("[^a-z]", "") + "x/" + i, "application/json", null, null);
      case 4 -> new Bad(OVERSIZED, "POST", search, "application/json", null,
          ("{\"filter\": {\"tenantId\": \"" + "z".repeat((int) BODY_CAP) + "\"}}").getBytes(StandardCharsets.UTF_8));
      default -> new Bad("protocol/binary", "POST", search, "application/json", null, randomBytes(random));
    };
  }

  @SafeVarargs
  private static <T> T pickOf(Random random, T... choices) {
    return choices[random.nextInt(choices.length)];
  }

  private static String hostileText(Random random) {
    return pickOf(random, "\\r\\nX-Injected: 1", "\\u0000", "\\u202e\\u2028", "<script>alert(1)</script>",
        "' OR '1'='1", "${jndi:ldap://x}", "%s%n", "Zoë注文", "\\ud83d\\ude00", "a".repeat(300), "$", "..\\/..");
  }

  private static String randomBase64(Random random) {
    byte[] bytes = new byte[1 + random.nextInt(64)];
    random.nextBytes(bytes);
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static byte[] randomBytes(Random random) {
    byte[] bytes = new byte[1 + random.nextInt(4096)];
    random.nextBytes(bytes);
    bytes[0] = '{';
    return bytes;
  }
}
