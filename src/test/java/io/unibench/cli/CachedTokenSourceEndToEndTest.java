package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.store.RunFilter;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cached-token figure's source (issue 20): the member of the reply it was read from, per reply in
 * requests.jsonl and the store, as {@code Cached Tokens Source} in benchmark_summary.json (an added key) and on the
 * figure's row in the terminal table, the same again from the store ({@code runs report}).
 */
class CachedTokenSourceEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path out;

    /** perf against {@code sim}: one repeated prompt, so its prefix is cached from the second request on. */
    private CliHarness.Run perf(SimServer sim, String name, String... extra) {
        List<String> a = new ArrayList<>(List.of("perf", "--url", sim.baseUrl() + "/v1", "--model", "m",
                "--outputs-dir", out.toString(), "--no-timestamp", "--name", name, "--sleep-interval", "0",
                "--parallel", "1", "--number", "4", "--max-tokens", "4", "--prompt",
                "Explain in one sentence what a database index is and why it helps.", "--server-metrics", "off",
                "--db", out.resolve("h.db").toString()));
        a.addAll(List.of(extra));
        CliHarness.Run r = CliHarness.main(a.toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isZero();
        return r;
    }

    private JsonNode summary(String name) throws Exception {
        return JSON.readTree(out.resolve(name).resolve("parallel_1_number_4/benchmark_summary.json").toFile());
    }

    private List<JsonNode> requests(String name) throws Exception {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve(name).resolve("parallel_1_number_4/requests.jsonl"))) {
            rows.add(JSON.readTree(line));
        }
        return rows;
    }

    private CliHarness.Run storedReport() throws Exception {
        String runId;
        try (RunStore store = RunStore.open(StoreLocation.resolve(out.resolve("h.db").toString(), Map.of()))) {
            runId = store.list(RunFilter.all(1)).getFirst().runId();
        }
        CliHarness.Run r = CliHarness.main("runs", "report", runId, "--db", out.resolve("h.db").toString());
        assertThat(r.exit()).as(r.err()).isZero();
        return r;
    }

    @Test
    void openAisCachedTokensAreLabelledWithTheirMemberEverywhere() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(2).withItlMs(1))) {
            CliHarness.Run r = perf(sim, "openai");
            JsonNode s = summary("openai");
            assertThat(s.path("Total Cached Tokens").asLong()).isPositive();
            assertThat(s.path("Cached Tokens Source").asText()).isEqualTo("prompt_tokens_details.cached_tokens");
            assertThat(s.path("Cache Hit Source").asText()).isEqualTo("server"); // kept: an addition, not a rename
            assertThat(requests("openai")).allSatisfy(row -> assertThat(row.path("cached_token_field").asText())
                    .isEqualTo("prompt_tokens_details.cached_tokens"));
            String label = "Total Cached Tokens (source: prompt_tokens_details.cached_tokens)";
            assertThat(r.out()).contains(label);
            assertThat(storedReport().out()).contains(label);
        }
    }

    @Test
    void llamaCppsTimingsAreTheSourceWhenTheUsageHasNoCachedFigure() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(2).withItlMs(1)
                .withReportCachedTokens(false).withLlamacppTimings(true))) {
            CliHarness.Run r = perf(sim, "llamacpp");
            JsonNode s = summary("llamacpp");
            assertThat(s.path("Cached Tokens Source").asText()).isEqualTo("timings.cache_n");
            List<JsonNode> rows = requests("llamacpp");
            assertThat(rows).allSatisfy(row -> assertThat(row.path("cached_tokens").asInt())
                    .isEqualTo(row.path("server_cache_n").asInt()));
            assertThat(rows.getLast().path("cached_tokens").asInt()).isPositive();
            assertThat(r.out()).contains("Total Cached Tokens (source: timings.cache_n)");
        }
    }

    @Test
    void anthropicsCacheReadIsItsSource() throws Exception {
        try (SimServer sim = SimServer.start(SimConfig.defaults().withTtftMs(2).withItlMs(1))) {
            CliHarness.Run r = perf(sim, "anthropic", "--api", "anthropic");
            assertThat(summary("anthropic").path("Cached Tokens Source").asText()).isEqualTo("cache_read_input_tokens");
            assertThat(r.out()).contains("Total Cached Tokens (source: cache_read_input_tokens)");
        }
    }
}
