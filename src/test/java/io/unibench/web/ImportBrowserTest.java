package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Download;
import com.microsoft.playwright.Page;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * In the browser: the runs page's import form stores another tool's result and lands on its run page (a bad file:
 * the located line, nothing stored); the run page downloads it as a Benchmark Report v0.2; the compare page shows
 * the two fingerprints side by side, the refusal, and "Compare anyway", whose verdicts are marked.
 */
class ImportBrowserTest extends BrowserTestBase {
    private static final Path SAMPLES = Path.of("src/test/resources/io/unibench/importer");
    private static final Path VLLM = SAMPLES.resolve(
            "vllm-bench-serve/openai-chat-infqps-concurrency4-qwen-plus-20261201-225459.json");

    @Test
    void aResultFileImportsFromTheRunsPageAndComparesWithItsFingerprintShown() throws Exception {
        Page page = open("/");
        page.setInputFiles("#import-form input[type=file][multiple]", VLLM);
        page.fill("#import-form input[name=tag]", "from-vllm");
        page.click("#import-form button[type=submit]");
        page.waitForURL("**/runs/*");
        String id = page.url().substring(page.url().lastIndexOf('/') + 1);
        assertThat(page.content()).contains("vLLM bench serve", "from-vllm");
        // the tool measured no cache figures: the tile says so, not that the target reported none
        assertThat(page.locator("#run-tiles").textContent()).contains("not measured by the tool it was imported from");

        Download download = page.waitForDownload(() -> page.click("#export-br"));
        assertThat(download.suggestedFilename()).isEqualTo(id + "-br-v0.2.json");
        String doc = Files.readString(download.path());
        assertThat(doc).contains("\"version\":\"0.2\"", "\"uid\":\"" + id + "\"");
        shot(page, "import-run.png");

        page.navigate(f.base() + "/compare?a=" + f.runIds.getFirst() + "&b=" + id);
        assertThat(page.locator("#fingerprints tr.differs").count()).isGreaterThanOrEqualTo(2);
        assertThat(page.locator("#compare-refused").textContent()).contains("No verdict");
        assertThat(page.locator("ul.refusals").textContent()).contains("B's TTFT is the first chunk of any kind");
        shot(page, "import-compare-refused.png");
        page.click("#compare-anyway");
        page.waitForURL("**force=true");
        assertThat(page.locator("#compare-forced").textContent()).contains("Compared anyway");
        assertThat(page.content()).contains("forced; not comparable");
        shot(page, "import-compare-forced.png");
    }

    @Test
    void anEvalscopePerfFolderImportsFromTheRunsPageChosenAsAFolderOrAsItsFiles() throws Exception {
        Path point = SAMPLES.resolve("evalscope-perf/qwen-plus/parallel_4_number_60");
        Page page = open("/");
        page.setInputFiles("#import-folder", point);
        page.fill("#import-form input[name=tag]", "from-evalscope");
        shot(page, "import-folder-chosen.png");
        page.click("#import-form button[type=submit]");
        page.waitForURL("**/runs/*");
        assertThat(page.content()).contains("evalscope perf", "from-evalscope", "parallel_4_number_60");
        shot(page, "import-evalscope-folder.png");
        String first = page.url().substring(page.url().lastIndexOf('/') + 1);

        // the same files chosen one by one: already imported, the page names the run and links it
        Path[] files = {point.resolve("benchmark_summary.json"), point.resolve("benchmark_percentile.json"),
                point.resolve("benchmark_args.json"), point.resolve("benchmark_data.db")};
        page = open("/");
        page.setInputFiles("#import-form input[type=file][multiple]", files);
        page.click("#import-form button[type=submit]");
        page.waitForLoadState();
        assertThat(page.content()).contains("already imported as run " + first, "href=\"/runs/" + first + "\"");
        // asked again (the form's "again"): another copy is stored
        page = open("/");
        page.setInputFiles("#import-form input[type=file][multiple]", files);
        page.check("#import-form input[name=again]");
        page.click("#import-form button[type=submit]");
        page.waitForURL("**/runs/*");
        assertThat(page.content()).contains("evalscope perf");
        assertThat(page.url()).doesNotEndWith(first);
    }

    @Test
    void aBadFileFromTheFormIsItsLocatedLineAndNothingIsStored() throws Exception {
        long before = f.store.count();
        Path bad = dir.resolve("broken.json");
        Files.writeString(bad, Files.readString(VLLM).replaceFirst("\"completed\": \\d+", "\"completed\": \"all\""));
        Page page = open("/");
        page.setInputFiles("#import-form input[type=file][multiple]", bad);
        page.click("#import-form button[type=submit]");
        page.waitForLoadState();
        assertThat(page.content()).contains("broken.json: /completed: expected a number, found string \"all\"");
        shot(page, "import-bad-file.png");
        assertThat(f.store.count()).isEqualTo(before);
    }
}
