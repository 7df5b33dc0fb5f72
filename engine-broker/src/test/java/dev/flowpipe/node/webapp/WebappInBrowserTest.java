package dev.flowpipe.node.webapp;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import dev.flowpipe.node.webapp.SharedWebappNode.Runs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The UI in the machine's headless Chromium (Debian's package at /usr/bin/chromium, driven by Playwright; no browser
 * is downloaded). A screenshot of each page goes to {@code target/screenshots/}.
 */
@ExtendWith(SharedWebappNode.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebappInBrowserTest {

  static final Path CHROMIUM = Paths.get("/usr/bin/chromium");
  static final Path SCREENSHOTS = Paths.get("target", "screenshots");

  private Runs runs;
  private Playwright playwright;
  private Browser browser;
  private Page page;

  @BeforeAll
  void launch(Runs runs) throws Exception {
    this.runs = runs;
    // no silent skip: without the browser this fails (CI installs it through .ci/run)
    assertThat(Files.isExecutable(CHROMIUM)).as(CHROMIUM + " (apt-get install chromium)").isTrue();
    Files.createDirectories(SCREENSHOTS);
    playwright = Playwright.create();
    browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
        .setExecutablePath(CHROMIUM)
        .setHeadless(true)
        .setArgs(List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync")));
    // the runs' last effects are searchable before the pages are opened
    await().atMost(Duration.ofSeconds(30)).until(() ->
        Http.post(runs.baseUrl() + "/v2/incidents/search", "{\"filter\": {\"state\": \"ACTIVE\", \"processDefinitionId\": \"webapp-fragile\"}}")
            .json().path("page").path("totalItems").asLong() == 1);
  }

  @BeforeEach
  void openPage() {
    if (page == null) {
      page = browser.newContext(new Browser.NewContextOptions().setViewportSize(1400, 1000)).newPage();
      page.setDefaultTimeout(20_000);
    }
  }

  @AfterAll
  void close() {
    if (browser != null) {
      browser.close();
    }
    if (playwright != null) {
      playwright.close();
    }
  }

  private void screenshot(String name) {
    page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve(name + ".png")).setFullPage(true));
  }

  @Test
  @Order(1)
  void theDashboardShowsRunningInstancesAndOpenIncidentsPerProcess() {
    page.navigate(runs.baseUrl() + "/#/");

    Locator order = page.locator("#dashboard-table tr[data-process='webapp-order']");
    Locator fragile = page.locator("#dashboard-table tr[data-process='webapp-fragile']");
    assertThat(order.locator("a.running")).hasText("2");
    assertThat(order.locator("a.incidents")).hasText("0");
    assertThat(fragile.locator("a.running")).hasText("1");
    assertThat(fragile.locator("a.incidents")).hasText("1");
    screenshot("dashboard");
  }

  @Test
  @Order(2)
  void theInstanceListFiltersByProcessAndIncident() {
    page.navigate(runs.baseUrl() + "/#/instances");
    assertThat(page.locator("#instances-table tbody tr[data-key]")).hasCount(4);

    page.fill("#filter-form input[name=processDefinitionId]", "webapp-fragile");
    page.selectOption("#filter-form select[name=hasIncident]", "true");
    page.click("#apply");

    Locator rows = page.locator("#instances-table tbody tr[data-key]");
    assertThat(rows).hasCount(1);
    assertThat(rows.first()).hasAttribute("data-key", String.valueOf(runs.fragileInstance()));
    assertThat(page.locator("#page-info")).hasText("1 instances");
    screenshot("instance-list");

    page.selectOption("#filter-form select[name=hasIncident]", "");
    page.fill("#filter-form input[name=processDefinitionId]", "webapp-order");
    page.selectOption("#filter-form select[name=state]", "COMPLETED");
    page.click("#apply");
    assertThat(rows).hasCount(1);
    assertThat(rows.first()).hasAttribute("data-key", String.valueOf(runs.orderInstances().getFirst()));
  }

  @Test
  @Order(3)
  void anInstancePageShowsTheDiagramWithStatesTheVariablesAndTheIncident() {
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=webapp-fragile");
    page.click("#instances-table a[href='#/instances/" + runs.fragileInstance() + "']");

    assertThat(page.locator("#instance-state")).hasText("ACTIVE");
    assertThat(page.locator("#diagram .djs-element[data-element-id='charge']")).hasClass(java.util.regex.Pattern.compile("element-incident"));
    assertThat(page.locator("#diagram .djs-element[data-element-id='begin']")).hasClass(java.util.regex.Pattern.compile("element-completed"));
    assertThat(page.locator("#diagram .badges[data-element='charge'] .badge-incident")).hasText("1");
    assertThat(page.locator("#variables-table tr[data-name='card']")).containsText("\"4111\"");
    assertThat(page.locator("#incidents-table")).containsText("card declined");
    assertThat(page.locator("#incidents-table")).containsText("JOB_NO_RETRIES");
    assertThat(page.locator("#history-table")).containsText("SERVICE_TASK");
    screenshot("instance-with-incident");
  }

  @Test
  @Order(4)
  void anActiveInstanceShowsItsActiveElement() {
    long waiting = runs.orderInstances().get(1);
    page.navigate(runs.baseUrl() + "/#/instances/" + waiting);

    assertThat(page.locator("#diagram .djs-element[data-element-id='ship']")).hasClass(java.util.regex.Pattern.compile("element-active"));
    assertThat(page.locator("#diagram .djs-element[data-element-id='prepare']")).hasClass(java.util.regex.Pattern.compile("element-completed"));
    assertThat(page.locator("#variables-table tr[data-name='prepared']")).containsText("true");
    screenshot("instance-active");
  }

  @Test
  @Order(5)
  void theProcessPageShowsTheDiagramWithCountsPerElement() {
    page.navigate(runs.baseUrl() + "/#/");
    page.click("#dashboard-table tr[data-process='webapp-order'] td a");

    assertThat(page.locator("#process-name")).hasText("Webapp order");
    assertThat(page.locator("#diagram .badges[data-element='ship'] .badge-active")).hasText("2");
    assertThat(page.locator("#diagram .badges[data-element='prepare'] .badge-completed")).hasText("3");
    screenshot("process");
  }

  @Test
  @Order(6)
  void listsRefreshByThemselves() {
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=webapp-fragile");
    Locator rows = page.locator("#instances-table tbody tr[data-key]");
    assertThat(rows).hasCount(1);

    try (var client = runs.node().client()) {
      client.newCreateInstanceCommand().bpmnProcessId("webapp-fragile").latestVersion().send().join();
    }

    assertThat(rows).hasCount(2, new com.microsoft.playwright.assertions.LocatorAssertions.HasCountOptions().setTimeout(15_000));
  }
}
