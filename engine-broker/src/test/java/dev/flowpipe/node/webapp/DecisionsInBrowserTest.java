package dev.flowpipe.node.webapp;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import dev.flowpipe.node.TestNode;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Decisions view in the machine's headless Chromium, on a node of its own with real DMN runs: test-support's
 * {@code flowpipe/dmn/dish.dmn} called by a business rule task, once with 4 guests (rule 1 of "dish" matches:
 * "Roastbeef") and once with 200 (two rules match, which the UNIQUE hit policy refuses: the evaluation fails at "dish").
 * The expected values are the DMN's, not the read model's. Screenshots go to {@code target/screenshots/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DecisionsInBrowserTest {

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

  @BeforeAll
  void runDecisionsAndOpenABrowser(@TempDir Path data) throws Exception {
    node = new TestNode(data).start();
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
      if (message.type().equals("error")) {
        consoleErrors.add(message.text());
      }
    });
  }

  @AfterAll
  void close() {
    if (browser != null) {
      browser.close();
    }
    if (playwright != null) {
      playwright.close();
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
    WebappInBrowserTest.screenshot(page, "decision-instance");
    assertThat(consoleErrors).as("the browser's console").isEmpty();
  }

  @Test
  void aFailedDecisionShowsTheEnginesFailureAndIsMarkedInItsDrd() {
    page.navigate(baseUrl + "/#/decisions/" + dishOf(undecided));

    assertThat(page.locator("#decision-state")).hasText("FAILED");
    assertThat(page.locator("#decision-failure")).not().isEmpty();
    assertThat(page.locator("#drd .djs-element[data-element-id='dish']"))
        .hasClass(Pattern.compile("element-incident"));
    WebappInBrowserTest.screenshot(page, "decision-instance-failed");
  }
}
