package dev.flowpipe.node.webapp;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.node.TestNode;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.testsupport.LiteralExpressionDmn;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Decisions view in the machine's headless Chromium, on a node of its own with real DMN runs: test-support's
 * {@code flowpipe/dmn/dish.dmn} called by a business rule task, once with 4 guests (rule 1 of "dish" matches:
 * "Roastbeef") and once with 200 (two rules match, which the UNIQUE hit policy refuses: the evaluation fails at "dish").
 * The expected values are the DMN's, not the read model's. Screenshots go to {@code target/screenshots/}. The paging
 * test runs last: its evaluations (of a decision of its own) would be rows of the unfiltered list the others count.
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DecisionsInBrowserTest {

  /** A one-decision DMN for the paging test: a literal expression, evaluated standalone. */
  static final String PAGED_DMN = LiteralExpressionDmn.of("ui-paged", "Paged", "Paged", "n * 2");
  /** More than the list's page of 50: a full page, then the rest. */
  static final int PAGED_EVALUATIONS = 57;

  static final BpmnModelInstance DECIDE =
      Bpmn.createExecutableProcess("ui-decide").startEvent()
          .businessRuleTask("choose", t -> t.zeebeCalledDecisionId("dish").zeebeResultVariable("meal")).endEvent()
          .done();

  private TestNode node;
  private String baseUrl;
  private long decided;
  private long undecided;
  private Playwright playwright;
  private Browser browser;
  private Page page;
  private final List<String> consoleErrors = new CopyOnWriteArrayList<>();
  private final List<String> failedRequests = new CopyOnWriteArrayList<>();

  @BeforeAll
  void runDecisionsAndOpenABrowser(@TempDir Path data, EmbeddedSearchStore store) throws Exception {
    // the test JVM's one store, under a prefix of its own: the decisions' counts are this node's alone
    node = new TestNode(data).with("flowpipe.store.url", store.url())
        .with("flowpipe.exporter.index-prefix", SharedOpenSearch.uniquePrefix()).start();
    baseUrl = "http://127.0.0.1:" + node.httpPort();
    try (ZeebeClient client = node.client()) {
      client.newDeployResourceCommand().addResourceFromClasspath("flowpipe/dmn/dish.dmn")
          .addProcessModel(DECIDE, "ui-decide.bpmn").send().join();
      decided = client.newCreateInstanceCommand().bpmnProcessId("ui-decide").latestVersion()
          .variables(Map.of("temperature", 5, "guests", 4)).send().join().getProcessInstanceKey();
      undecided = client.newCreateInstanceCommand().bpmnProcessId("ui-decide").latestVersion()
          .variables(Map.of("temperature", 5, "guests", 200)).send().join().getProcessInstanceKey();
    }
    await("both evaluations searchable").atMost(Duration.ofSeconds(60)).until(() ->
        Http.post(baseUrl + "/v2/decision-instances/search", "{\"filter\": {\"decisionDefinitionId\": \"dish\"}}")
            .json().path("page").path("totalItems").asLong() == 2);
    Files.createDirectories(WebappInBrowserTest.SCREENSHOTS);
    playwright = Playwright.create();
    browser = HeadlessChromium.launch(playwright);
    page = browser.newContext(new Browser.NewContextOptions().setViewportSize(1400, 1000)).newPage();
    page.setDefaultTimeout(20_000);
    page.onConsoleMessage(message -> {
      if (message.type().equals("error") && !isTheLogosInlineStyle(message.text())) {
        consoleErrors.add(message.text() + " (" + message.location() + ")");
      }
    });
    page.onResponse(response -> {
      if (response.status() >= 400) {
        failedRequests.add(response.status() + " " + response.url());
      }
    });
  }

  /**
   * The page's policy drops the inline styles dmn-js writes on the bpmn.io logo it draws (the page's stylesheet places
   * the logo instead), and the browser reports each: those reports, recognised by the hashes of exactly those two
   * style texts, are expected; any other is an error.
   */
  private static boolean isTheLogosInlineStyle(String message) {
    return message.contains("Content Security Policy") && LOGO_STYLE_HASHES.stream().anyMatch(message::contains);
  }

  private static final List<String> LOGO_STYLE_HASHES = List.of(
      sha256("position: absolute; bottom: 15px; right: 15px; z-index: 100;"), sha256("vertical-align:middle"));

  private static String sha256(String text) {
    try {
      return "sha256-" + java.util.Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterAll
  void close() {
    if (playwright != null) {
      playwright.close(); // and its browser
    }
    if (node != null) {
      node.close();
    }
  }

  /** The key of the "dish" decision instance of a process instance, as the list links it. */
  private String dishOf(long processInstance) {
    return Http.post(baseUrl + "/v2/decision-instances/search", "{\"filter\": {\"decisionDefinitionId\": \"dish\","
        + " \"processInstanceKey\": \"" + processInstance + "\"}}").json().path("items").get(0)
        .path("decisionEvaluationInstanceKey").asText();
  }

  @Test
  @Order(1)
  void theListShowsEachEvaluatedDecisionAndFiltersTheFailedOnes() {
    page.navigate(baseUrl + "/#/decisions");

    Locator rows = page.locator("#decision-instances-table tbody tr[data-key]");
    assertThat(rows).hasCount(4); // "season" and "dish" of each evaluation
    assertThat(page.locator("#decision-instances-table tr[data-key='" + dishOf(decided) + "']"))
        .containsText("EVALUATED");
    WebappInBrowserTest.screenshot(page, "decision-list");

    page.selectOption("#decision-filters select[name=state]", "FAILED");
    page.click("#decision-filters button[type=submit]");

    assertThat(rows).hasCount(1);
    assertThat(rows.first()).hasAttribute("data-key", dishOf(undecided));
    assertThat(rows.first()).containsText(String.valueOf(undecided));
  }

  @Test
  @Order(2)
  void anEvaluatedDecisionShowsItsInputsTheMatchedRuleItsOutputAndItsDrd() {
    page.navigate(baseUrl + "/#/decisions");
    page.click("#decision-instances-table a[href='#/decisions/" + dishOf(decided) + "']");

    assertThat(page.locator("#decision-name")).hasText("Dish");
    assertThat(page.locator("#decision-state")).hasText("EVALUATED");
    assertThat(page.locator("#decision-inputs-table tr[data-input='input-season']")).containsText("\"Winter\"");
    assertThat(page.locator("#decision-inputs-table tr[data-input='input-guests']")).containsText("4");
    assertThat(page.locator("#decision-rules-table tbody tr[data-rule]")).hasCount(1);
    assertThat(page.locator("#decision-rules-table tr[data-rule='rule-winter']")).containsText("\"Roastbeef\"");
    assertThat(page.locator("#decision-result")).hasText("\"Roastbeef\"");
    assertThat(page.locator("#decision-process-instance")).hasText(String.valueOf(decided));
    // the DRD as dmn-js draws it: both decisions and their requirement, the evaluated one marked
    assertThat(page.locator("#drd[data-rendered=true]")).hasCount(1);
    assertThat(page.locator("#drd .djs-element[data-element-id='season']")).hasCount(1);
    assertThat(page.locator("#drd .djs-element[data-element-id='dish-needs-season']")).hasCount(1);
    assertThat(page.locator("#drd .djs-element[data-element-id='dish']"))
        .hasClass(Pattern.compile("element-completed"));
    assertThat(page.locator("#drd-name")).hasText("Dish for the season (dish-drd)");
    assertThat(page.locator("#drd .bjs-powered-by")).isVisible();
    WebappInBrowserTest.screenshot(page, "decision-instance");
    assertThat(failedRequests).as("requests answered with an error").isEmpty();
    assertThat(consoleErrors).as("the browser's console").isEmpty();
  }

  @Test
  @Order(3)
  void aFailedDecisionShowsTheEnginesFailureAndIsMarkedInItsDrd() {
    page.navigate(baseUrl + "/#/decisions/" + dishOf(undecided));

    assertThat(page.locator("#decision-state")).hasText("FAILED");
    assertThat(page.locator("#decision-failure")).not().isEmpty();
    assertThat(page.locator("#drd .djs-element[data-element-id='dish']"))
        .hasClass(Pattern.compile("element-incident"));
    WebappInBrowserTest.screenshot(page, "decision-instance-failed");
  }

  @Test
  @Order(4)
  void theListPagesForwardAndBackThroughMoreThanOnePageOfDecisionInstances() {
    // the engine's answers are the oracle: one decision instance per standalone evaluation, "<key>-1"
    Set<String> evaluated = new LinkedHashSet<>();
    try (ZeebeClient client = node.client()) {
      client.newDeployResourceCommand().addResourceStringUtf8(PAGED_DMN, "ui-paged.dmn").send().join();
      for (int n = 0; n < PAGED_EVALUATIONS; n++) {
        evaluated.add(client.newEvaluateDecisionCommand().decisionId("ui-paged").variables(Map.of("n", n)).send()
            .join().getDecisionInstanceKey() + "-1");
      }
    }
    await("the evaluations searchable").atMost(Duration.ofSeconds(60)).until(() ->
        Http.post(baseUrl + "/v2/decision-instances/search", "{\"filter\": {\"decisionDefinitionId\": \"ui-paged\"}}")
            .json().path("page").path("totalItems").asLong() == PAGED_EVALUATIONS);

    page.navigate(baseUrl + "/#/decisions?decisionDefinitionId=ui-paged");
    Locator rows = page.locator("#decision-instances-table tbody tr[data-key]");
    assertThat(page.locator("#decision-count")).hasText(PAGED_EVALUATIONS + " decision instance(s)");
    assertThat(rows).hasCount(50);
    List<String> first = keys(rows);
    WebappInBrowserTest.screenshot(page, "decision-list-page-1");

    page.click("#decisions-next");
    assertThat(rows).hasCount(PAGED_EVALUATIONS - 50);
    List<String> second = keys(rows);
    WebappInBrowserTest.screenshot(page, "decision-list-page-2");

    page.click("#decisions-prev");
    assertThat(rows).hasCount(50);
    List<String> back = keys(rows);

    List<String> walked = new ArrayList<>(first);
    walked.addAll(second);
    assertThat(walked).as("both pages: every evaluation once").doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(evaluated);
    assertThat(back).as("Previous from the second page").isEqualTo(first);
    assertThat(failedRequests).as("requests answered with an error").isEmpty();
    assertThat(consoleErrors).as("the browser's console").isEmpty();
  }

  private static List<String> keys(Locator rows) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < rows.count(); i++) {
      keys.add(rows.nth(i).getAttribute("data-key"));
    }
    return keys;
  }
}
