package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each budget of one request (the defaults of {@code flowpipe.webapp.limits} and the paging limits) answered 400, or
 * 413 for the body, as problem+json naming the limit and the value; the requests just within each are served. And
 * every error Spring or the servlet container raises outside our handlers in the same problem shape.
 */
@ExtendWith(FixtureWebapp.class)
class RequestBudgetsTest {

  private static final String LIMITS = "flowpipe.webapp.limits.";

  private static void assertLimit(Answer answer, String part, String limit, long maximum, long value) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(400);
    assertThat(answer.contentType()).startsWith("application/problem+json");
    JsonNode problem = answer.json();
    assertThat(problem.path("part").asText()).isEqualTo(part);
    assertThat(problem.path("limit").asText()).isEqualTo(limit);
    assertThat(problem.path("maximum").asLong()).isEqualTo(maximum);
    assertThat(problem.path("value").asLong()).isEqualTo(value);
    assertThat(problem.path("detail").asText()).contains(limit).contains(Long.toString(value));
  }

  private static String keys(int count) {
    return IntStream.rangeClosed(1, count).mapToObj(i -> "\"" + i + "\"").collect(Collectors.joining(","));
  }

  @Nested
  class ListsAndBranches {

    @Test
    void anInListOfTheMaximumLengthIsServedAndOneMoreValueIsRefused(TestWebapp app) {
      String within = "{\"filter\": {\"processInstanceKey\": {\"$in\": [" + keys(1000) + "]}}, \"page\": {\"limit\": 0}}";
      String beyond = "{\"filter\": {\"processInstanceKey\": {\"$in\": [" + keys(1001) + "]}}}";

      assertThat(app.post("/v2/process-instances/search", within).status()).isEqualTo(200);
      assertLimit(app.post("/v2/process-instances/search", beyond), "filter.processInstanceKey.$in",
          LIMITS + "max-list-values", 1000, 1001);
    }

    @Test
    void aNotInListBeyondTheMaximumIsRefused(TestWebapp app) {
      Answer answer = app.post("/v2/jobs/search",
          "{\"filter\": {\"jobKey\": {\"$notIn\": [" + keys(5000) + "]}}}");

      assertLimit(answer, "filter.jobKey.$notIn", LIMITS + "max-list-values", 1000, 5000);
    }

    @Test
    void anOrWithMoreBranchesThanTheMaximumIsRefused(TestWebapp app) {
      String branches = IntStream.range(0, 51).mapToObj(i -> "{\"processInstanceKey\": \"" + (i + 1) + "\"}")
          .collect(Collectors.joining(","));

      Answer answer = app.post("/v2/process-instances/search", "{\"filter\": {\"$or\": [" + branches + "]}}");

      assertLimit(answer, "filter.$or", LIMITS + "max-or-branches", 50, 51);
    }

    @Test
    void fieldConditionsAreCountedAcrossTheOrBranches(TestWebapp app) {
      // 40 branches of 3 conditions each, within the branch limit: 120 conditions, beyond 100
      String branches = IntStream.range(0, 40).mapToObj(i -> "{\"processInstanceKey\": \"" + (i + 1)
          + "\", \"state\": \"ACTIVE\", \"hasIncident\": false}").collect(Collectors.joining(","));

      Answer answer = app.post("/v2/process-instances/search", "{\"filter\": {\"$or\": [" + branches + "]}}");

      assertLimit(answer, "filter", LIMITS + "max-filter-conditions", 100, 120);
    }
  }

  @Nested
  class ValuesSortAndPositions {

    @Test
    void aFilterValueLongerThanTheMaximumIsRefusedAlsoAsALikePattern(TestWebapp app) {
      String longValue = "x".repeat(4097);

      assertLimit(app.post("/v2/variables/search", "{\"filter\": {\"name\": \"" + longValue + "\"}}"),
          "filter.name", LIMITS + "max-value-length", 4096, 4097);
      assertLimit(app.post("/v2/variables/search", "{\"filter\": {\"value\": {\"$like\": \"*" + longValue + "\"}}}"),
          "filter.value.$like", LIMITS + "max-value-length", 4096, 4098);
      assertThat(app.post("/v2/variables/search",
          "{\"filter\": {\"name\": \"" + "x".repeat(4096) + "\"}}").status()).isEqualTo(200);
    }

    @Test
    void moreSortEntriesThanTheMaximumAreRefused(TestWebapp app) {
      List<String> entries = new ArrayList<>(Collections.nCopies(11, "{\"field\": \"startDate\"}"));

      Answer answer = app.post("/v2/process-instances/search", "{\"sort\": [" + String.join(",", entries) + "]}");

      assertLimit(answer, "sort", LIMITS + "max-sort-fields", 10, 11);
    }

    @Test
    void moreConsistencyPositionsThanTheMaximumAreRefusedBeforeAnyWait(TestWebapp app) {
      String positions = IntStream.rangeClosed(1, 65)
          .mapToObj(i -> "{\"partitionId\": " + i + ", \"position\": 1}").collect(Collectors.joining(","));

      Answer answer = app.post("/v2/process-instances/search",
          "{\"consistency\": {\"positions\": [" + positions + "]}}");

      assertLimit(answer, "consistency.positions", LIMITS + "max-consistency-positions", 64, 65);
    }
  }

  @Nested
  class Paging {

    @Test
    void aPageFromNearTheLargestIntegerIsA400NamingPageFromNotAnOverflow(TestWebapp app) {
      Answer answer = app.post("/v2/process-instances/search",
          "{\"page\": {\"from\": " + Integer.MAX_VALUE + ", \"limit\": 10}}");

      assertThat(answer.status()).as(answer.body()).isEqualTo(400);
      assertThat(answer.json().path("part").asText()).isEqualTo("page.from");
      assertThat(answer.json().path("detail").asText()).contains(Long.toString(Integer.MAX_VALUE + 10L));
    }

    @Test
    void aPageFromBeyondTheIntegersAndANegativeOneAre400s(TestWebapp app) {
      for (String from : List.of("1e30", "99999999999999999999", "-1", "1.5", "\"3\"")) {
        Answer answer = app.post("/v2/process-instances/search", "{\"page\": {\"from\": " + from + "}}");

        assertThat(answer.status()).as(from + ": " + answer.body()).isEqualTo(400);
        assertThat(answer.json().path("part").asText()).isEqualTo("page.from");
      }
    }

    @Test
    void theBatchItemsPageRefusesAnOverflowingOffsetToo(TestWebapp app) {
      Answer answer = app.post("/v2/batch-operation-items/search",
          "{\"filter\": {\"batchOperationKey\": \"1\"}, \"page\": {\"from\": 2147483647, \"limit\": 10}}");

      assertThat(answer.status()).as(answer.body()).isIn(400, 403);
      assertThat(answer.contentType()).startsWith("application/problem+json");
    }

    @Test
    void theActiveInstancesStatisticsRefuseAnOverflowingOffset(TestWebapp app) {
      Answer answer = app.post("/v2/process-definitions/statistics/process-instances",
          "{\"page\": {\"from\": 2147483647, \"limit\": 2147483647}}");

      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      assertThat(answer.json().path("items")).isEmpty();
      assertThat(app.post("/v2/process-definitions/statistics/process-instances",
          "{\"page\": {\"from\": 1e40}}").status()).isEqualTo(400);
    }
  }

  @Nested
  class TheBody {

    @Test
    void aBodyDeclaredLargerThanTheCapIsAnswered413BeforeItIsSent(TestWebapp app) throws IOException {
      long declared = 50L * 1024 * 1024;
      URI uri = URI.create(app.baseUrl());
      try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
        socket.setSoTimeout(10_000);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v2/process-instances/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: " + declared + "\r\n\r\n{\"filter\": {").getBytes(StandardCharsets.US_ASCII));
        out.flush();

        String answer = readAnswer(socket.getInputStream());

        assertThat(answer).startsWith("HTTP/1.1 413");
        assertThat(answer).contains("application/problem+json").contains(LIMITS + "max-body-size")
            .contains("\"value\":" + declared).contains("\"maximum\":" + 4L * 1024 * 1024);
      }
    }

    @Test
    void aChunkedBodyIsCutAtTheCapAnd413(TestWebapp app) {
      byte[] chunk = ("{\"filter\": {\"name\": \"" + "y".repeat(8 * 1024 * 1024) + "\"}}").getBytes(StandardCharsets.UTF_8);
      // a stream publisher has no length: the client sends it chunked
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(app.baseUrl() + "/v2/variables/search"))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(chunk)));

      Answer answer = app.send(request);

      assertThat(answer.status()).as(answer.body()).isEqualTo(413);
      assertThat(answer.contentType()).startsWith("application/problem+json");
      assertThat(answer.json().path("limit").asText()).isEqualTo(LIMITS + "max-body-size");
    }

    private static String readAnswer(InputStream in) throws IOException {
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
        // the server closes the connection after the answer, the body unread: what it wrote is what counts
      }
      return read.toString(StandardCharsets.UTF_8);
    }
  }

  @Nested
  class ProblemsOutsideOurHandlers {

    private static void assertProblem(Answer answer, int status) {
      assertThat(answer.status()).as(answer.body()).isEqualTo(status);
      assertThat(answer.contentType()).startsWith("application/problem+json");
      JsonNode problem = answer.json();
      assertThat(problem.path("type").asText()).isEqualTo("about:blank");
      assertThat(problem.path("title").asText()).isNotBlank();
      assertThat(problem.path("status").asInt()).isEqualTo(status);
      assertThat(problem.path("detail").asText()).isNotBlank();
      assertThat(problem.path("instance").asText()).startsWith("/");
    }

    @Test
    void anUnknownPathIs404(TestWebapp app) {
      assertProblem(app.get("/v2/no-such-thing/1/deeper"), 404);
      assertProblem(app.post("/v2/no-such-entity/search", "{}"), 404);
    }

    @Test
    void theErrorPageAskedForDirectlyIs404NotA500(TestWebapp app) {
      assertProblem(app.get("/error"), 404);
    }

    @Test
    void malformedJsonIs400NamingTheBody(TestWebapp app) {
      Answer answer = app.post("/v2/process-instances/search", "{\"filter\": ");

      assertProblem(answer, 400);
      assertThat(answer.json().path("part").asText()).isEqualTo("body");
    }

    @Test
    void deepNestingIs400(TestWebapp app) {
      String deep = "[".repeat(5000) + "]".repeat(5000);

      assertProblem(app.post("/v2/process-instances/search", "{\"filter\": " + deep + "}"), 400);
    }

    @Test
    void aWrongContentTypeIs415AndAWrongAcceptIs406(TestWebapp app) {
      assertProblem(app.send(HttpRequest.newBuilder(URI.create(app.baseUrl() + "/v2/process-instances/search"))
          .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("{}"))), 415);
      assertProblem(app.send(HttpRequest.newBuilder(URI.create(app.baseUrl() + "/v2/process-instances/search"))
          .header("Content-Type", "application/json").header("Accept", "image/png")
          .POST(HttpRequest.BodyPublishers.ofString("{}"))), 406);
    }

    @Test
    void aRefusedMethodIsAProblemToo(TestWebapp app) {
      // DELETE is mapped by no route and denied by security before it gets there
      Answer answer = app.send(HttpRequest.newBuilder(URI.create(app.baseUrl() + "/v2/process-instances/search"))
          .DELETE());

      assertThat(answer.status()).isIn(403, 405);
      assertProblem(answer, answer.status());
    }
  }
}
