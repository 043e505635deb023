package io.unibench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.cli.Main;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** `unibench perf` against a faulty simulator: the run completes and records every request with its class. */
class SimPerfRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SimConfig FAST = SimConfig.defaults().withTtftMs(1).withItlMs(1).withPrefillMsPerToken(0);

    @TempDir
    Path out;

    private List<JsonNode> run(SimServer sim, String... extra) throws Exception {
        return run(sim, 0, extra);
    }

    private List<JsonNode> run(SimServer sim, int expectedExit, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("perf", "--url", sim.baseUrl() + "/v1/chat/completions",
                "--model", "unibench-sim", "--outputs-dir", out.toString(), "--no-timestamp", "--name", "f",
                "--parallel", "3", "--number", "24", "--max-tokens", "6", "--extra-args", "{\"ignore_eos\": true}",
                "--no-test-connection", "--read-timeout", "2"));
        args.addAll(List.of(extra));
        StringWriter o = new StringWriter(), e = new StringWriter();
        int exit = Main.execute(args.toArray(String[]::new), new PrintWriter(o, true), new PrintWriter(e, true));
        assertThat(exit).as(e.toString()).isEqualTo(expectedExit);
        Path jsonl = out.resolve("f").resolve("parallel_3_number_24").resolve("requests.jsonl");
        List<JsonNode> records = new ArrayList<>();
        for (String line : Files.readAllLines(jsonl)) records.add(JSON.readTree(line));
        return records;
    }

    @Test
    void headerFaultFailsEveryRequestAndEachIsRecorded() throws Exception {
        try (SimServer sim = SimServer.start(FAST, Tokenizers.load("cl100k_base"))) {
            List<JsonNode> records = run(sim, 3, "--headers", // 3: no request succeeded
                    "X-Unibench-Fault={\"type\":\"fail-midstream\",\"after_chunks\":2}");
            assertThat(records).hasSize(24);
            for (JsonNode r : records) {
                assertThat(r.get("success").asBoolean()).isFalse();
                assertThat(r.get("error_class").asText()).isEqualTo("business_error");
            }
            assertThat(sim.stats().streamsActive()).isZero();
        }
    }

    @Test
    void ratedFaultsMixWithSuccessesAndEveryRequestIsRecorded() throws Exception {
        SimConfig flaky = FAST.with(Map.of("fault-rate-429", 0.2, "fault-rate-disconnect", 0.2,
                "fault-rate-malformed-json", 0.1, "fault-after-chunks", 2));
        try (SimServer sim = SimServer.start(flaky, Tokenizers.load("cl100k_base"))) {
            List<JsonNode> records = run(sim);
            assertThat(records).hasSize(24);
            List<String> classes = records.stream().map(r -> r.get("error_class").isNull() ? "ok"
                    : r.get("error_class").asText()).toList();
            assertThat(classes).containsAnyOf("http_429", "connection_reset", "protocol_error");
            assertThat(classes).contains("ok");
            assertThat(classes).allMatch(c -> List.of("ok", "http_429", "connection_reset", "protocol_error").contains(c));
        }
    }
}
