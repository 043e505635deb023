package io.unibench.web;

import static org.junit.jupiter.api.Assertions.fail;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What every browser test class extends: the fixture's service ({@link WebFixture}: two stored runs, the simulator)
 * and real headless Chromium (Debian's), driven by Playwright for Java with the npm package
 * {@code playwright-core} of the same version as its driver (.ci/run installs both; nothing is downloaded by the
 * tests). Locally the tests are skipped, with the reason, when Chromium, node or the driver is missing; in CI
 * ({@code CI=true}) they fail instead. Screenshots go to target/screenshots/. One service and one browser per
 * test class (JUnit runs the classes one after another).
 */
abstract class BrowserTestBase extends WebFixtureTest {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path NODE = Path.of("/usr/bin/node");
    static final Path SHOTS = Path.of("target", "screenshots");

    private static Playwright playwright;
    private static Browser browser;

    @BeforeAll
    static void startBrowser() throws Exception {
        launch();
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) browser.close();
        if (playwright != null) playwright.close();
        browser = null;
        playwright = null;
    }

    /** Where .ci/run put playwright-core (a folder holding {@code package/cli.js}). */
    static Path driverDir() {
        String env = System.getenv("UNIBENCH_PLAYWRIGHT_DIR");
        if (env != null && !env.isBlank()) return Path.of(env);
        return Path.of(System.getProperty("user.home"), ".cache", "unibench",
                "playwright-core-" + System.getProperty("playwright.version", "1.61.0"));
    }

    private static void launch() throws IOException {
        playwright = playwright();
        browser = chromium(playwright);
        Files.createDirectories(SHOTS);
    }

    /**
     * Playwright on Debian's node and the installed driver, or the test class skipped (locally) / failed (CI)
     * naming what is missing. For test classes with a service of their own.
     */
    static Playwright playwright() {
        Path driver = driverDir();
        String missing = !Files.isExecutable(CHROMIUM) ? CHROMIUM + " (apt-get install chromium)"
                : !Files.isExecutable(NODE) ? NODE.toString()
                : !Files.isRegularFile(driver.resolve("package/cli.js"))
                ? driver + "/package/cli.js (npm package playwright-core; .ci/run installs it)" : null;
        if (missing != null) {
            if ("true".equals(System.getenv("CI"))) fail("browser tests must run in CI; missing " + missing);
            Assumptions.abort("browser tests skipped: missing " + missing);
        }
        System.setProperty("playwright.cli.dir", driver.toString());
        return Playwright.create(new Playwright.CreateOptions().setEnv(Map.of(
                "PLAYWRIGHT_NODEJS_PATH", NODE.toString(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
    }

    /** Debian's headless Chromium, nothing of it reaching out (no background networking, updates or sync). */
    static Browser chromium(Playwright playwright) {
        return playwright.chromium().launch(new BrowserType.LaunchOptions().setExecutablePath(CHROMIUM)
                .setHeadless(true).setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync")));
    }

    /**
     * A new 1400×1000 page at the service's {@code path}. It bypasses the service's content security policy:
     * Playwright's {@code waitForFunction} compiles its predicate in the page (eval), which the policy forbids; the
     * policy itself is tested without the bypass ({@link CrossSiteBrowserTest}).
     */
    static Page open(String path) {
        Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1400, 1000).setBypassCSP(true));
        page.navigate(f.base() + path);
        return page;
    }

    /** The class's browser, for a page of other options than {@link #open}'s. */
    static Browser browser() {
        return browser;
    }

    /** The whole page saved as target/screenshots/{@code name}. */
    static void shot(Page page, String name) {
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve(name)).setFullPage(true));
    }

    /** True when the chart's canvas has a drawn (non-transparent) pixel. */
    static boolean drawn(Page page, String chartId) {
        return (Boolean) page.evaluate("id => [...document.querySelectorAll('#' + id + ' canvas')].some(c => {"
                + " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                + " for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return true; return false; })", chartId);
    }

    /** The series count the page's chart registered in {@code window.unibenchCharts}; -1 when it did not. */
    static int series(Page page, String chartId) {
        return ((Number) page.evaluate("id => window.unibenchCharts && window.unibenchCharts[id] ? "
                + "window.unibenchCharts[id].series : -1", chartId)).intValue();
    }
}
