package dev.flowpipe.node.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Playwright;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/** The machine's headless Chromium (Debian's package; no browser is downloaded), driven by Playwright. */
public final class HeadlessChromium {

  static final Path CHROMIUM = Paths.get("/usr/bin/chromium");

  /**
   * Held by a class that changes Playwright's default assertion timeout (one for the whole JVM) while it runs: classes
   * run two at a time in this module.
   */
  public static final String ASSERTION_TIMEOUT_LOCK = "playwright-default-assertion-timeout";

  private HeadlessChromium() {}

  /** Launches it; fails (no silent skip) where it is missing: CI installs it through .ci/run. */
  public static Browser launch(Playwright playwright) {
    assertThat(Files.isExecutable(CHROMIUM)).as(CHROMIUM + " (apt-get install chromium)").isTrue();
    return playwright.chromium().launch(new BrowserType.LaunchOptions()
        .setExecutablePath(CHROMIUM)
        .setHeadless(true)
        .setArgs(List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync")));
  }
}
