package dev.flowpipe.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a browser may be made to send or to open: a write must be JSON from this origin (another site's form or
 * {@code no-cors} fetch cannot send that), and the stored BPMN is served as a sandboxed download, never as a page of
 * this origin. On the web app on its own with basic auth, without a gateway: a write that passes every check answers
 * 501 (naming the missing gateway setting).
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CrossSiteAndDocumentsTest {

  private static final String CANCEL = "/v2/process-instances/2251799813685249/cancellation";

  private TestWebapp app;

  @BeforeAll
  void start(EmbeddedSearchStore node, SearchStore store) {
    String prefix = SharedOpenSearch.uniquePrefix();
    ReadModelFixture.write(store, prefix, "1s");
    app = TestWebapp.start(Map.of(
        "flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix,
        "flowpipe.webapp.security.basic-auth", true,
        "flowpipe.webapp.security.users[0].username", "operator",
        "flowpipe.webapp.security.users[0].password", "o",
        "flowpipe.webapp.security.users[0].roles", "write"));
    app.as("operator", "o");
  }

  @AfterAll
  void stop() {
    app.close();
  }

  private TestWebapp.Answer cancel(String contentType, Map<String, String> headers, String body) {
    return post(CANCEL, contentType, headers, body);
  }

  private TestWebapp.Answer post(String path, String contentType, Map<String, String> headers, String body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(app.baseUrl() + path))
        .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    headers.forEach(request::header);
    return app.send(request);
  }

  @Nested
  class AWrite {

    @Test
    void withoutAContentTypeIsRefusedNamingIt() {
      // what another site's fetch(url, {method: 'POST', mode: 'no-cors', credentials: 'include'}) sends
      TestWebapp.Answer answer = cancel(null, Map.of(), null);

      assertThat(answer.status()).isEqualTo(403);
      assertThat(answer.contentType()).startsWith("application/problem+json");
      assertThat(answer.json().path("detail").asText()).contains("Content-Type: application/json").contains("none");
      assertThat(answer.json().path("instance").asText()).isEqualTo(CANCEL);
    }

    @Test
    void withAFormsOrAPlainTextTypeIsRefused() {
      for (String simpleType : new String[] {"application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
          "text/plain;charset=UTF-8"}) {
        TestWebapp.Answer answer = cancel(simpleType, Map.of(), "{}");

        assertThat(answer.status()).as(simpleType).isEqualTo(403);
        assertThat(answer.json().path("detail").asText()).as(simpleType).contains(simpleType);
      }
    }

    @Test
    void fromAnotherOriginIsRefusedEvenAsJson() {
      TestWebapp.Answer otherPort = cancel("application/json", Map.of("Origin", "http://127.0.0.1:1"), "{}");
      assertThat(otherPort.status()).isEqualTo(403);
      assertThat(otherPort.json().path("detail").asText()).contains("Origin: http://127.0.0.1:1");

      assertThat(cancel("application/json", Map.of("Origin", "null"), "{}").status()).isEqualTo(403);
      TestWebapp.Answer crossSite = cancel("application/json", Map.of("Sec-Fetch-Site", "cross-site"), "{}");
      assertThat(crossSite.status()).isEqualTo(403);
      assertThat(crossSite.json().path("detail").asText()).contains("Sec-Fetch-Site: cross-site");
      assertThat(cancel("application/json", Map.of("Sec-Fetch-Site", "same-site"), "{}").status()).isEqualTo(403);
    }

    @Test
    void asJsonFromThisOriginOrFromAProgramGoesOnWithOrWithoutABody() {
      String self = app.baseUrl();
      // the UI's own fetch
      assertThat(cancel("application/json", Map.of("Origin", self, "Sec-Fetch-Site", "same-origin"), "{}").status())
          .isEqualTo(501);
      // a program (Camunda's client, curl): JSON, no Origin; a bodyless operation with no body at all
      assertThat(cancel("application/json", Map.of(), null).status()).isEqualTo(501);
      assertThat(cancel("application/json; charset=utf-8", Map.of(), "{}").status()).isEqualTo(501);
    }

    @Test
    void aBatchStateChangeFromAProgramGoesOnWithoutBodyOrTypeButNotFromAPage() {
      // Camunda's 8.8 client suspends, resumes and cancels a batch with no body and no Content-Type
      for (String change : new String[] {"suspension", "resumption", "cancellation"}) {
        String path = "/v2/batch-operations/42/" + change;
        assertThat(post(path, null, Map.of(), null).status()).as(change).isEqualTo(404); // past the filter: no batch 42
        assertThat(post(path, null, Map.of("Sec-Fetch-Site", "cross-site"), null).status()).as(change).isEqualTo(403);
        assertThat(post(path, null, Map.of("Origin", "http://127.0.0.1:1"), null).status()).as(change).isEqualTo(403);
        assertThat(post(path, null, Map.of(), "x").status()).as(change + " with a body").isEqualTo(403);
      }
      // nowhere else: an instance's cancellation without a type stays refused (withoutAContentTypeIsRefusedNamingIt)
      assertThat(cancel(null, Map.of(), null).status()).isEqualTo(403);
    }

    @Test
    void aSearchIsNoWriteAndNeedsNoContentType() {
      TestWebapp.Answer answer = app.send(HttpRequest.newBuilder(URI.create(app.baseUrl()
          + "/v2/process-instances/search")).POST(HttpRequest.BodyPublishers.noBody()));

      assertThat(answer.status()).isEqualTo(200);
    }
  }

  @Nested
  class TheStoredBpmn {

    @Test
    void isServedAsASandboxedXmlDownloadThatNoBrowserRunsOrSniffs() {
      TestWebapp.Answer answer = app.get("/v2/process-definitions/3/xml");

      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.contentType()).startsWith("text/xml");
      assertThat(answer.raw().headers().allValues("Content-Security-Policy"))
          .singleElement().asString().startsWith("sandbox;").contains("default-src 'none'");
      assertThat(answer.header("X-Content-Type-Options")).isEqualTo("nosniff");
      assertThat(answer.header("Content-Disposition")).isEqualTo("attachment; filename=\"3.bpmn\"");
      assertThat(answer.body()).isEqualTo(ReadModelFixture.XML);
    }

    @Test
    void isAnsweredToCamundasClientWhichAsksForJson() {
      TestWebapp.Answer answer = app.send(HttpRequest.newBuilder(URI.create(app.baseUrl()
          + "/v2/process-definitions/3/xml")).header("Accept", "application/json, application/problem+json").GET());

      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.contentType()).startsWith("text/xml");
      assertThat(answer.body()).isEqualTo(ReadModelFixture.XML);
    }
  }

  @Nested
  class EveryAnswer {

    @Test
    void ofTheUiAllowsScriptsFromThisOriginOnly() {
      TestWebapp.Answer page = app.get("/");

      assertThat(page.status()).isEqualTo(200);
      assertThat(page.raw().headers().allValues("Content-Security-Policy")).singleElement().asString()
          .contains("script-src 'self';").contains("object-src 'none'").contains("frame-ancestors 'none'")
          .contains("base-uri 'self'").contains("style-src 'self';").doesNotContain("unsafe");
    }

    @Test
    void ofTheApiIsSandboxedAndNotSniffed() {
      TestWebapp.Answer answer = app.get("/v2/process-instances/1001");

      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.header("Content-Security-Policy")).startsWith("sandbox;");
      assertThat(answer.header("X-Content-Type-Options")).isEqualTo("nosniff");
    }
  }
}
