package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Page;
import io.unibench.cli.Main;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/**
 * The compare page and a run's page with request-rate levels: their curves are drawn against the offered rate
 * (req/s) on charts of their own, not at concurrency −1 on the concurrency curves; a run of both kinds shows both.
 * Runs: two open-loop perf runs at 20 and 40 req/s, and one of both kinds (parallel 2 unpaced, then paced at 20
 * req/s within that bound), beside the fixture's two closed-loop runs.
 */
class CompareRatesBrowserTest extends BrowserTestBase {
    static String openA;
    static String openB;
    static String mixed;

    @BeforeAll
    static void rateRuns() {
        openA = perf("open-a", "--open-loop", "--rate", "20", "40");
        openB = perf("open-b", "--open-loop", "--rate", "20", "40");
        mixed = perf("mixed", "--parallel", "2", "--rate", "-1", "20");
    }

    private static String perf(String name, String... load) {
        StringWriter err = new StringWriter();
        List<String> args = new java.util.ArrayList<>(List.of("perf", "--url", f.sim.baseUrl() + "/v1/chat/completions",
                "--model", "m", "--outputs-dir", dir.resolve("rate-outputs").toString(), "--no-timestamp", "--name",
                name, "--sleep-interval", "0", "--number", "6", "6", "--max-tokens", "4", "--db", f.location.jdbcUrl()));
        args.addAll(List.of(load));
        int exit = Main.execute(args.toArray(String[]::new), new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true));
        assertThat(exit).as(err.toString()).isZero();
        String e = err.toString();
        return e.substring(e.indexOf("Run history: run ") + "Run history: run ".length()).split(" ")[0];
    }

    @SuppressWarnings("unchecked")
    private static List<Double> x(Page page, String id) {
        return ((List<Number>) page.evaluate("id => window.unibenchCharts[id].x", id)).stream()
                .map(Number::doubleValue).toList();
    }

    @Test
    void twoOpenLoopRunsAreComparedAlongTheOfferedRate() {
        Page page = open("/compare?a=" + openA + "&b=" + openB);
        page.waitForFunction("Object.keys(window.unibenchCharts).length === 6");
        for (String id : List.of("cmp-rates-tok", "cmp-rates-ttft")) {
            assertThat(series(page, id)).as(id).isEqualTo(2);
            assertThat(drawn(page, id)).as(id).isTrue();
            assertThat(x(page, id)).as(id).containsExactly(20.0, 40.0);
        }
        for (String id : List.of("cmp-levels-tok", "cmp-levels-ttft")) {
            assertThat(series(page, id)).as(id + ": no concurrency level, no chart").isEqualTo(-1);
            assertThat(page.locator("#" + id).isHidden()).as(id).isTrue();
        }
        assertThat(page.locator("#cmp-rates-tok .u-title").textContent()).contains("offered req/s");
        shot(page, "compare-rates.png");
    }

    @Test
    void aRunOfBothKindsShowsBothCurves() {
        Page compare = open("/compare?a=" + f.runIds.get(0) + "&b=" + mixed);
        compare.waitForFunction("Object.keys(window.unibenchCharts).length === 8");
        assertThat(x(compare, "cmp-levels-tok")).as("the closed-loop levels: A's 2 and 4, B's 2")
                .containsExactly(2.0, 4.0);
        assertThat(x(compare, "cmp-rates-tok")).as("B's paced level").containsExactly(20.0);
        shot(compare, "compare-mixed.png");
        Page detail = open("/runs/" + openA);
        detail.waitForFunction("window.unibenchCharts['chart-rate-levels']");
        assertThat(x(detail, "chart-rate-levels")).containsExactly(20.0, 40.0);
        assertThat(series(detail, "chart-levels")).isEqualTo(-1);
        assertThat(detail.locator("#chart-levels").isHidden()).isTrue();
        shot(detail, "run-rates.png");
    }
}
