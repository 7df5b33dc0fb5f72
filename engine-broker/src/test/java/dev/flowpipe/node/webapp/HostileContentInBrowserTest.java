package dev.flowpipe.node.webapp;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.ScratchDirectories;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * What a deployed model, an engine's data or another site can make an operator's browser do: nothing. A real node
 * with basic auth; a BPMN carrying an XHTML {@code <script>} in its extension elements, deployed through the gateway;
 * HTML and script in a process's and a task's names, in variable values, in a worker's name and in an incident's
 * message; and a page on another origin (a server of this test on another port of 127.0.0.1) that tries every write
 * with the operator's credentials in the browser. Every payload would call this test's server ({@code /hit/...}) if
 * it ran; the last test shows the XML's script does run where it is served as a page (on that server), so the
 * payloads are live. Screenshots go to {@code target/screenshots/}.
 */
@ExtendWith(SharedOpenSearch.class)
// it sets Playwright's default assertion timeout, which is global to the JVM
@ResourceLock(HeadlessChromium.ASSERTION_TIMEOUT_LOCK)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileContentInBrowserTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final List<String> hits = new CopyOnWriteArrayList<>();
  private HttpServer otherSite;
  private String otherOrigin;
  private TestNode node;
  private String baseUrl;
  private String hostileXml;
  private String prefix;
  private long definitionKey;
  private long incidentInstance;
  private long targetInstance;
  private Playwright playwright;
  private Browser browser;

  @BeforeAll
  void start(EmbeddedSearchStore store) throws Exception {
    otherSite = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    otherOrigin = "http://127.0.0.1:" + otherSite.getAddress().getPort();
    otherSite.createContext("/hit/", exchange -> {
      hits.add(exchange.getRequestURI().getPath());
      answer(exchange, 200, "text/plain", "seen");
    });
    otherSite.createContext("/attack.html", exchange -> answer(exchange, 200, "text/html", attackPage()));
    otherSite.createContext("/hostile.xml", exchange -> answer(exchange, 200, "text/xml", hostileXml));
    otherSite.start();

    // the test JVM's one store, under a prefix of its own
    prefix = SharedOpenSearch.uniquePrefix();
    node = new TestNode(ScratchDirectories.create("hostile-content"))
        .with("flowpipe.store.url", store.url()).with("flowpipe.exporter.index-prefix", prefix)
        .with("flowpipe.webapp.security.basic-auth", true)
        .with("flowpipe.webapp.security.users[0].username", "operator")
        .with("flowpipe.webapp.security.users[0].password", "o")
        .with("flowpipe.webapp.security.users[0].roles", "read,write")
        .start();
    baseUrl = "http://127.0.0.1:" + node.httpPort();
    deployAndRun();
    Files.createDirectories(WebappInBrowserTest.SCREENSHOTS);
    // a page's six searches, the XML and the diagram take more than the default 5 s on a loaded machine
    PlaywrightAssertions.setDefaultAssertionTimeout(30_000);
    playwright = Playwright.create();
    browser = HeadlessChromium.launch(playwright);
  }

  @AfterAll
  void stop() {
    PlaywrightAssertions.setDefaultAssertionTimeout(5_000);
    if (browser != null) {
      browser.close();
    }
    if (playwright != null) {
      playwright.close();
    }
    if (node != null) {
      node.close();
    }
    if (otherSite != null) {
      otherSite.stop(0);
    }
  }

  /** A payload that calls this test's server if a browser ever runs it. */
  private String img(String name) {
    return "<img src=x onerror=\"fetch('" + otherOrigin + "/hit/" + name + "')\">";
  }

  private String script(String name) {
    return "<script>fetch('" + otherOrigin + "/hit/" + name + "')</script>";
  }

  private void deployAndRun() {
    String xml = Bpmn.convertToString(Bpmn.createExecutableProcess("hostile")
        .name(img("process-name")).startEvent("begin")
        .serviceTask("work", t -> t.name(img("task-name")).zeebeJobType("hostile-work"))
        .endEvent("end").done());
    // the script the issue found running: an XHTML script element among the process's extension elements
    // (the model API writes BPMN as the default namespace: no prefix)
    String scriptElement = "<extensionElements><h:script xmlns:h=\"http://www.w3.org/1999/xhtml\">"
        + "document.title = 'pwned'; localStorage.setItem('pwned', 'xml');"
        + " fetch('" + otherOrigin + "/hit/xml-script');</h:script></extensionElements>";
    int processStart = xml.indexOf("<process ");
    int processOpened = xml.indexOf('>', processStart) + 1;
    assertThat(processStart).as("the model's process element in %s", xml).isPositive();
    hostileXml = xml.substring(0, processOpened) + scriptElement + xml.substring(processOpened);
    try (ZeebeClient client = node.client()) {
      definitionKey = client.newDeployResourceCommand()
          .addResourceString(hostileXml, StandardCharsets.UTF_8, "hostile.bpmn").send().join()
          .getProcesses().getFirst().getProcessDefinitionKey();
      Map<String, Object> variables = Map.of("html", img("variable"), "script", script("variable-script"));
      incidentInstance = client.newCreateInstanceCommand().processDefinitionKey(definitionKey).variables(variables)
          .send().join().getProcessInstanceKey();
      ActivatedJob job = SharedWebappNode.activate(client, "hostile-work", 1).getFirst();
      assertThat(job.getProcessInstanceKey()).isEqualTo(incidentInstance);
      client.newFailCommand(job).retries(0).errorMessage(img("incident") + script("incident-script")).send().join();
      targetInstance = client.newCreateInstanceCommand().processDefinitionKey(definitionKey).send().join()
          .getProcessInstanceKey();
    }
    // the worker's name: a job of the target instance activated (and left) by a worker named with HTML
    try (ZeebeClient client = node.client()) {
      await().atMost(Duration.ofSeconds(30)).until(() -> !client.newActivateJobsCommand().jobType("hostile-work")
          .maxJobsToActivate(1).workerName(img("worker")).timeout(Duration.ofMinutes(10)).send().join().getJobs()
          .isEmpty());
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> search("incidents",
        "{\"filter\": {\"processInstanceKey\": \"" + incidentInstance + "\"}}").path("page").path("totalItems")
        .asLong() == 1 && search("jobs", "{\"filter\": {\"processInstanceKey\": \"" + targetInstance + "\"}}")
        .path("items").path(0).path("worker").asText().contains("onerror"));
  }

  private Page operatorPage(List<String> cspViolations) {
    BrowserContext context = browser.newContext(new Browser.NewContextOptions().setViewportSize(1400, 1000)
        .setHttpCredentials("operator", "o"));
    Page page = context.newPage();
    page.setDefaultTimeout(20_000);
    page.onConsoleMessage(message -> {
      if (message.text().contains("Content Security Policy")) {
        cspViolations.add(message.text());
      }
    });
    return page;
  }

  @Test
  @Order(1)
  void theScriptCarryingBpmnRunsThroughNoLinkTheUiOffersNorOpenedDirectly() {
    List<String> cspViolations = new CopyOnWriteArrayList<>();
    Page page = operatorPage(cspViolations);
    try {
      // the process page: the diagram and its counts
      page.navigate(baseUrl + "/#/processes/" + definitionKey);
      assertThat(page.locator("#diagram .djs-element[data-element-id='work']")).hasCount(1);
      assertThat(page.locator("#process-name")).hasText(img("process-name"));
      assertThat(page.locator("#diagram .badges[data-element='work']")).hasCount(1);
      WebappInBrowserTest.screenshot(page, "hostile-process-page");
      // the instance page's diagram
      page.navigate(baseUrl + "/#/instances/" + incidentInstance);
      assertThat(page.locator("#diagram .djs-element[data-element-id='work']")).hasCount(1);
      assertThat(page.locator("#incidents-table")).containsText("onerror");
      // the XML itself, opened as a page would be by a link to it: a sandboxed download, never this origin's page
      String opened;
      try {
        page.navigate(baseUrl + "/v2/process-definitions/" + definitionKey + "/xml");
        opened = "a page: " + page.content();
      } catch (PlaywrightException e) {
        String why = e.getMessage().replaceAll("\\s+", " ");
        opened = "no page: " + why.substring(0, Math.min(200, why.length()));
      }
      System.out.println("[hostile] the XML opened directly: " + opened.lines().findFirst().orElse(""));
      page.navigate(baseUrl + "/#/");
      assertThat(page.locator("#dashboard-table")).containsText(img("process-name"));

      // the UI reads the importer's state from the health details: its own request carries the signed-in user
      assertThat(page.evaluate("() => fetch('/actuator/health').then(r => r.json())"
          + ".then(health => Object.keys(health.components || {}).join(','))").toString()).contains("searchStore");

      assertThat(page.title()).isEqualTo("flowpipe");
      assertThat(page.evaluate("() => localStorage.getItem('pwned')")).isNull();
      assertThat(hits).as("calls of the payloads").isEmpty();
      assertThat(cspViolations).as("the UI works under its Content-Security-Policy").isEmpty();
    } finally {
      page.context().close();
    }
  }

  @Test
  @Order(2)
  void htmlInValuesNamesAndMessagesIsShownAsTextAndNeverRuns() {
    List<String> cspViolations = new CopyOnWriteArrayList<>();
    Page page = operatorPage(cspViolations);
    try {
      page.navigate(baseUrl + "/#/instances/" + incidentInstance);
      assertThat(page.locator("#variables-table tr[data-name='html'] .value")).hasText("\"" + img("variable")
          .replace("\"", "\\\"") + "\"");
      assertThat(page.locator("#variables-table tr[data-name='script'] .value")).containsText(
          "<script>fetch(");
      assertThat(page.locator("#incidents-table")).containsText(img("incident") + script("incident-script"));
      assertThat(page.locator("#jobs-table")).containsText("<img src=x onerror=");
      assertThat(page.locator("#view table img")).hasCount(0);
      assertThat(page.locator("#view script")).hasCount(0);
      assertThat(page.locator("#diagram .djs-element[data-element-id='work']")).hasCount(1);
      WebappInBrowserTest.screenshot(page, "hostile-instance-page");

      page.navigate(baseUrl + "/#/instances/" + targetInstance);
      assertThat(page.locator("#jobs-table")).containsText(img("worker"));
      assertThat(page.locator("#view table img")).hasCount(0);
      WebappInBrowserTest.screenshot(page, "hostile-worker-name");

      page.navigate(baseUrl + "/#/instances?processDefinitionId=hostile");
      assertThat(page.locator("#instances-table tr[data-key='" + targetInstance + "']")).hasCount(1);

      assertThat(hits).as("calls of the payloads").isEmpty();
      assertThat(cspViolations).as("the UI works under its Content-Security-Policy").isEmpty();
    } finally {
      page.context().close();
    }
  }

  /**
   * The repair tools (issue 35): the modification mode lists the task by its hostile name, its review shows a hostile
   * variable value, and the audit trail shows the engine's refusal of a hostile element id: all as text.
   */
  @Test
  @Order(2)
  void theRepairToolsShowHostileNamesValuesAndRefusalsAsText() throws Exception {
    // a modification the engine refuses, naming the hostile element id in its message (recorded as a FAIL)
    HttpResponse<String> refused = HTTP.send(asOperator("/v2/process-instances/" + incidentInstance + "/modification")
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
            JSON.writeValueAsString(Map.of("activateInstructions", List.of(Map.of("elementId", img("element-id")))))))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
    List<String> cspViolations = new CopyOnWriteArrayList<>();
    Page page = operatorPage(cspViolations);
    try {
      page.navigate(baseUrl + "/#/instances/" + incidentInstance);
      assertThat(page.locator("#diagram .djs-element[data-element-id='work']")).hasCount(1);
      page.click("#modify-instance");
      assertThat(page.locator("#modify-element option[value='work']")).hasText(img("task-name") + " (work)");
      page.selectOption("#modify-element", "work");
      page.fill("#modify-variables", JSON.writeValueAsString(Map.of("note", script("modification-variable"))));
      page.click("#modify-activate");
      assertThat(page.locator("#modification-table tr[data-kind='activate']")).containsText("<script>fetch(");
      Locator failed = page.locator("#audit-table tr[data-operation='MODIFY']");
      assertThat(failed).containsText("FAIL");
      assertThat(failed).containsText("onerror");
      assertThat(page.locator("#view img")).hasCount(0);
      assertThat(page.locator("#view script")).hasCount(0);
      WebappInBrowserTest.screenshot(page, "hostile-modification-mode");
      page.click("#modify-close");

      page.navigate(baseUrl + "/#/audit?processInstanceKey=" + incidentInstance);
      assertThat(page.locator("#audit-log-table tr[data-operation='MODIFY']")).containsText("onerror");
      assertThat(page.locator("#view img")).hasCount(0);

      assertThat(hits).as("calls of the payloads").isEmpty();
      assertThat(cspViolations).as("the UI works under its Content-Security-Policy").isEmpty();
    } finally {
      page.context().close();
    }
  }

  @Test
  @Order(3)
  void aPageOnAnotherOriginChangesNothingWithTheOperatorsCredentialsInTheBrowser() throws Exception {
    String flowControlBefore = settingsOf(getAsOperator("/actuator/flowControl"));
    Page page = operatorPage(new CopyOnWriteArrayList<>());
    try {
      // the operator is signed in to the node: the browser holds the credentials for its origin
      page.navigate(baseUrl + "/#/instances/" + targetInstance);
      assertThat(page.locator("#instance-state")).hasText("ACTIVE");

      page.navigate(otherOrigin + "/attack.html");
      assertThat(page.locator("#done")).hasText("attacks sent", new com.microsoft.playwright.assertions
          .LocatorAssertions.HasTextOptions().setTimeout(60_000));
      WebappInBrowserTest.screenshot(page, "cross-site-attack-page");
      System.out.println("[hostile] what the other origin's page saw: " + page.locator("#log").textContent());
    } finally {
      page.context().close();
    }

    // a write of the operator's own, through the API as a program sends it, after every attack was answered: the
    // engine takes it only while the instance's scope exists (a cancelled instance's is gone: 404)
    HttpResponse<String> probe = HTTP.send(asOperator("/v2/element-instances/" + targetInstance + "/variables")
        .header("Content-Type", "application/json")
        .method("PUT", HttpRequest.BodyPublishers.ofString("{\"variables\": {\"probe\": 1}}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(probe.statusCode()).as(probe.body()).isEqualTo(204);
    // and the read model, once it shows the probe (exported after anything the attacks could have caused), shows the
    // instance active
    await().atMost(Duration.ofSeconds(30)).until(() -> search("variables", "{\"filter\": {\"processInstanceKey\": \""
        + targetInstance + "\", \"name\": \"probe\"}}").path("page").path("totalItems").asLong() == 1);
    assertThat(search("process-instances", "{\"filter\": {\"processInstanceKey\": \"" + targetInstance + "\"}}")
        .path("items").path(0).path("state").asText()).isEqualTo("ACTIVE");
    assertThat(search("variables", "{\"filter\": {\"name\": \"pwned\"}}").path("page").path("totalItems").asLong())
        .isZero();
    // no batch was started: the store's batch index holds nothing
    HttpResponse<String> batches = HTTP.send(HttpRequest.newBuilder(URI.create(node.store().connection().url()
        + "/" + prefix + "-batch-operation-v1/_count")).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(batches.statusCode() == 404 || JSON.readTree(batches.body()).path("count").asLong() == 0)
        .as(batches.body()).isTrue();
    assertThat(settingsOf(getAsOperator("/actuator/flowControl"))).isEqualTo(flowControlBefore);
  }

  @Test
  @Order(4)
  void theSameXmlServedAsAPageElsewhereDoesRunItsScript() {
    // the control: the payload is live, so the tests above could have seen it run
    Page page = browser.newPage();
    try {
      page.navigate(otherOrigin + "/hostile.xml");
      await().atMost(Duration.ofSeconds(20)).until(() -> hits.contains("/hit/xml-script"));
    } finally {
      page.context().close();
    }
  }

  /** Every write of the operations and the actuator, as forms and fetches from another origin. */
  private String attackPage() {
    String node = baseUrl;
    String cancel = node + "/v2/process-instances/" + targetInstance + "/cancellation";
    String batch = node + "/v2/process-instances/cancellation";
    String variables = node + "/v2/element-instances/" + targetInstance + "/variables";
    String flowControl = node + "/actuator/flowControl";
    return """
        <!doctype html><html><head><title>another site</title></head><body>
        <h1>Another site</h1><pre id="log"></pre><p id="done"></p>
        <iframe name="sink1"></iframe><iframe name="sink2"></iframe><iframe name="sink3"></iframe>
        <form id="f1" method="post" action="%1$s" target="sink1"><input name="x" value="1"></form>
        <form id="f2" method="post" action="%2$s" enctype="text/plain" target="sink2">
          <input name='{"filter": {"processDefinitionId": "hostile", "x": "' value='"}}'></form>
        <form id="f3" method="post" action="%4$s" enctype="text/plain" target="sink3">
          <input name='{"writeLimit": 1, "x": "' value='"}'></form>
        <script>
        const log = text => { document.getElementById('log').textContent += text + '\\n'; };
        const attempt = (name, url, init) => fetch(url, { credentials: 'include', ...init })
          .then(r => log(name + ': ' + (r.type === 'opaque' ? 'sent (opaque answer)' : r.status)))
          .catch(e => log(name + ': ' + e.message));
        const loaded = id => new Promise(done => { document.querySelector('iframe[name=' + id + ']').onload = done; });
        (async () => {
          await Promise.all([
            attempt('no-cors POST, no body', '%1$s', { method: 'POST', mode: 'no-cors' }),
            attempt('no-cors POST, text/plain {}', '%1$s', { method: 'POST', mode: 'no-cors',
              headers: { 'Content-Type': 'text/plain' }, body: '{}' }),
            attempt('no-cors POST, form-urlencoded', '%1$s', { method: 'POST', mode: 'no-cors',
              headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1' }),
            attempt('cors POST, JSON', '%1$s', { method: 'POST', mode: 'cors',
              headers: { 'Content-Type': 'application/json' }, body: '{}' }),
            attempt('no-cors batch cancel, text/plain', '%2$s', { method: 'POST', mode: 'no-cors',
              headers: { 'Content-Type': 'text/plain' }, body: '{"filter": {"processDefinitionId": "hostile"}}' }),
            attempt('cors batch cancel, JSON', '%2$s', { method: 'POST', mode: 'cors',
              headers: { 'Content-Type': 'application/json' }, body: '{"filter": {}}' }),
            attempt('no-cors PUT variables', '%3$s', { method: 'PUT', mode: 'no-cors',
              headers: { 'Content-Type': 'text/plain' }, body: '{"variables": {"pwned": 1}}' }),
            attempt('cors PUT variables, JSON', '%3$s', { method: 'PUT', mode: 'cors',
              headers: { 'Content-Type': 'application/json' }, body: '{"variables": {"pwned": 1}}' }),
            attempt('no-cors flowControl, text/plain', '%4$s', { method: 'POST', mode: 'no-cors',
              headers: { 'Content-Type': 'text/plain' }, body: '{"writeLimit": 1}' }),
            attempt('cors flowControl, JSON', '%4$s', { method: 'POST', mode: 'cors',
              headers: { 'Content-Type': 'application/json' }, body: '{"writeLimit": 1}' }),
          ]);
          const frames = [loaded('sink1'), loaded('sink2'), loaded('sink3')];
          document.getElementById('f1').submit();
          document.getElementById('f2').submit();
          document.getElementById('f3').submit();
          await Promise.all(frames);
          log('forms: cancel (urlencoded), batch cancel (text/plain), flowControl (text/plain) submitted');
          document.getElementById('done').textContent = 'attacks sent';
        })();
        </script></body></html>
        """.formatted(cancel, batch, variables, flowControl);
  }

  private static String settingsOf(String report) {
    return report.substring(0, report.indexOf("\"partitions\""));
  }

  private HttpRequest.Builder asOperator(String path) {
    return HttpRequest.newBuilder(URI.create(baseUrl + path)).header("Authorization",
        "Basic " + Base64.getEncoder().encodeToString("operator:o".getBytes(StandardCharsets.UTF_8)));
  }

  private String getAsOperator(String path) throws IOException, InterruptedException {
    HttpResponse<String> response = HTTP.send(asOperator(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body();
  }

  private JsonNode search(String entity, String body) {
    try {
      HttpResponse<String> response = HTTP.send(asOperator("/v2/" + entity + "/search")
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void answer(HttpExchange exchange, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", type + "; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
