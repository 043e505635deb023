package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every flag of {@code evalscope perf} (the reference's section 1, all of them) once through the real CLI: through
 * a capturing proxy to the simulator, each check sees the request bodies and headers that reached the wire, or the
 * files and lines the flag changes; a flag that cannot apply here is refused with one line naming it, or (a tuning
 * knob of evalscope's pipeline) accepted with a note.
 */
class EvalscopeFlagsTest {
    /** evalscope perf's flags as the reference lists them (§1.1–1.8). */
    static final List<String> EVALSCOPE_FLAGS = List.of(
            "--model", "--attn-implementation", "--api", "--tokenizer-path", "--url", "--port", "--headers", "--api-key",
            "--connect-timeout", "--read-timeout", "--total-timeout", "--no-test-connection",
            "--number", "--parallel", "--rate", "--warmup-num", "--open-loop", "--sleep-interval", "--duration",
            "--sla-auto-tune", "--sla-variable", "--sla-params", "--sla-num-runs", "--sla-upper-bound",
            "--sla-lower-bound", "--sla-fixed-parallel", "--sla-number-multiplier",
            "--db-commit-interval", "--queue-size-multiplier", "--in-flight-task-multiplier", "--num-workers",
            "--log-every-n-query", "--debug", "--enable-progress-tracker", "--visualizer", "--wandb-api-key",
            "--swanlab-api-key", "--swanlab-host", "--name", "--outputs-dir", "--no-timestamp",
            "--max-prompt-length", "--min-prompt-length", "--prefix-length", "--prompt", "--query-template",
            "--apply-chat-template", "--no-apply-chat-template", "--image-width", "--image-height", "--image-format",
            "--image-num", "--image-patch-size", "--dataset", "--dataset-path", "--data-source", "--dataset-offset",
            "--dataset-args", "--max-tokens", "--min-tokens", "--frequency-penalty", "--repetition-penalty",
            "--logprobs", "--n-choices", "--seed", "--stop", "--stop-token-ids", "--stream", "--no-stream",
            "--temperature", "--top-p", "--top-k", "--extra-args", "--tokenize-prompt",
            "--multi-turn", "--min-turns", "--max-turns", "--multi-turn-args");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static SimServer sim;
    private static CapturingProxy proxy;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() throws IOException {
        sim = SimServer.start(SimConfig.defaults().withTtftMs(1).withPrefillMsPerToken(0).withItlMs(1));
        proxy = new CapturingProxy(sim.baseUrl());
    }

    @AfterAll
    static void stop() {
        proxy.close();
        sim.close();
    }

    /** What one run did: its exit and lines, what reached the wire, where its files are. */
    record Result(int exit, String out, String err, List<CapturingProxy.Captured> requests, Path root) {
        List<JsonNode> bodies() {
            return requests.stream().map(CapturingProxy.Captured::body).toList();
        }

        JsonNode body() {
            assertThat(requests).as(err).isNotEmpty();
            return requests.getFirst().body();
        }

        JsonNode json(String relative) {
            try {
                return JSON.readTree(root.resolve(relative).toFile());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        JsonNode args() {
            try (Stream<Path> files = Files.walk(root)) {
                Path args = files.filter(f -> f.getFileName().toString().equals("benchmark_args.json")).findFirst().orElseThrow();
                return JSON.readTree(args.toFile());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        Result ok() {
            assertThat(exit).as(err).isZero();
            return this;
        }

        void refused(String flag) {
            assertThat(exit).as(err).isEqualTo(2);
            assertThat(err.strip()).contains(flag).doesNotContain("\n").doesNotContain("Exception");
            assertThat(requests).isEmpty();
        }
    }

    private static final List<String[]> DEFAULTS = List.of(
            new String[] {"--model", "m"}, new String[] {"--outputs-dir", null}, new String[] {"--name", "t"},
            new String[] {"--no-timestamp"}, new String[] {"--sleep-interval", "0"}, new String[] {"--number", "2"},
            new String[] {"--max-tokens", "3"}, new String[] {"--min-prompt-length", "16"},
            new String[] {"--max-prompt-length", "16"});

    /** The flags given, plus the defaults above for any flag they do not set; --no-db and --no-test-connection always. */
    private Result run(String... flags) {
        List<String> given = Arrays.asList(flags);
        List<String> args = new ArrayList<>(List.of("perf", "--no-db"));
        if (!given.contains("--url")) args.addAll(List.of("--url", proxy.baseUrl() + "/v1/chat/completions"));
        if (!given.contains("--test-connection")) args.add("--no-test-connection");
        for (String[] d : DEFAULTS) {
            boolean set = given.contains(d[0]) || d[0].equals("--number") && given.contains("-n")
                    || d[0].equals("--no-timestamp") && given.contains("--no-timestamp");
            if (set) continue;
            args.add(d[0]);
            if (d.length > 1) args.add(d[1] != null ? d[1] : tmp.resolve("out").toString());
        }
        given.stream().filter(f -> !f.equals("--test-connection")).forEach(args::add);
        proxy.clear();
        // --debug writes to the process's stderr: capture it with the CLI's own streams
        ByteArrayOutputStream processErr = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        CliHarness.Run run;
        try (PrintStream capture = new PrintStream(processErr, true, StandardCharsets.UTF_8)) {
            System.setErr(capture);
            run = CliHarness.main(args.toArray(String[]::new));
        } finally {
            System.setErr(saved);
        }
        String name = given.contains("--name") ? given.get(given.indexOf("--name") + 1) : "t";
        Path out = given.contains("--outputs-dir") ? Path.of(given.get(given.indexOf("--outputs-dir") + 1)) : tmp.resolve("out");
        return new Result(run.exit(), run.out(), run.err() + processErr.toString(StandardCharsets.UTF_8),
                proxy.requests(), out.resolve(name));
    }

    private static Arguments flag(String label, String[] flags, Consumer<Result> check) {
        return Arguments.of(label, flags, check);
    }

    private static String[] f(String... flags) {
        return flags;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                // ---- model / API / connection
                flag("model", f("--model", "my-model"), r -> assertThat(r.ok().body().get("model").asText()).isEqualTo("my-model")),
                flag("api openai, url", f("--api", "openai"), r -> assertThat(r.ok().requests().getFirst().path()).isEqualTo("/v1/chat/completions")),
                flag("url without a path", f("--url", "URL_BASE"), r -> assertThat(r.ok().requests().getFirst().path()).isEqualTo("/v1/chat/completions")),
                flag("url with user info: Basic authorization", f("--url", "URL_USER_INFO"), r ->
                        assertThat(r.ok().requests().getFirst().headers()).containsEntry("authorization",
                                "Basic " + java.util.Base64.getEncoder().encodeToString("alice:pw%1".getBytes(StandardCharsets.UTF_8)))),
                flag("headers", f("--headers", "X-Trace=abc", "X-Team=llm"), r -> {
                    assertThat(r.ok().requests().getFirst().headers()).containsEntry("x-trace", "abc").containsEntry("x-team", "llm");
                }),
                flag("api-key", f("--api-key", "sk-flagtest123456"), r ->
                        assertThat(r.ok().requests().getFirst().headers()).containsEntry("authorization", "Bearer sk-flagtest123456")),
                flag("timeouts", f("--connect-timeout", "5", "--read-timeout", "7", "--total-timeout", "30"), r -> {
                    JsonNode a = r.ok().args();
                    assertThat(a.get("connect_timeout").asDouble()).isEqualTo(5);
                    assertThat(a.get("read_timeout").asDouble()).isEqualTo(7);
                    assertThat(a.get("total_timeout").asDouble()).isEqualTo(30);
                }),
                // exit 3 when no request succeeded (issue 14), 0 when one slipped through between two gaps
                flag("read-timeout shorter than the reply", f("--read-timeout", "0.001", "--extra-args", "{\"ignore_eos\": true}",
                        "--max-tokens", "50"), r -> {
                    assertThat(r.exit()).as(r.err()).isIn(0, 3);
                    assertThat(r.json("parallel_1_number_2/benchmark_summary.json").get("Failed Requests").asLong()).isPositive();
                }),
                flag("connection test (without --no-test-connection)", f("--test-connection"), r ->
                        assertThat(r.ok().requests()).hasSize(3)), // the test request, then --number 2
                flag("no-test-connection", f(), r -> assertThat(r.ok().requests()).hasSize(2)),
                // prompts of 40 o200k tokens: 40 exactly by that tokenizer, far more by the simulator's cl100k count
                flag("tokenizer-path", f("--tokenizer-path", "o200k_base", "--min-prompt-length", "40", "--max-prompt-length", "40"), r -> {
                    JsonNode summary = r.ok().json("parallel_1_number_2/benchmark_summary.json");
                    assertThat(summary.get("Avg Synthesized Prompt Tokens").asDouble()).isEqualTo(40.0);
                    assertThat(summary.get("Avg Input Tokens").asDouble()).isGreaterThan(60.0);
                }),
                // ---- load shape
                flag("number", f("-n", "3"), r -> assertThat(r.ok().requests()).hasSize(3)),
                flag("parallel sweep", f("--parallel", "1", "2", "--number", "2", "4"), r -> {
                    assertThat(r.ok().requests()).hasSize(6);
                    assertThat(r.root().resolve("parallel_2_number_4")).isDirectory();
                }),
                flag("rate", f("--rate", "50"), r -> assertThat(r.ok().args().get("rate").asDouble()).isEqualTo(50)),
                flag("open-loop", f("--open-loop", "--rate", "40", "--number", "4"), r -> {
                    assertThat(r.ok().requests()).hasSize(4);
                    assertThat(r.root().resolve("rate_40.0_number_4")).isDirectory();
                    assertThat(r.args().get("parallel").asInt()).isEqualTo(-1);
                    assertThat(r.out()).contains("INF");
                }),
                flag("open-loop without a rate", f("--open-loop"), r -> r.refused("--open-loop needs --rate > 0")),
                flag("warmup-num", f("--warmup-num", "2"), r -> {
                    assertThat(r.ok().requests()).hasSize(4);
                    assertThat(r.json("parallel_1_number_2/benchmark_summary.json").get("Total Requests").asLong()).isEqualTo(2);
                }),
                flag("sleep-interval", f("--sleep-interval", "0", "--parallel", "1", "1", "--number", "1", "1"),
                        r -> assertThat(r.ok().args().get("sleep_interval").asInt()).isZero()),
                flag("duration", f("--duration", "0.3", "--number", "1000000", "--max-tokens", "2"),
                        r -> assertThat(r.ok().err()).contains("--duration reached")),
                // ---- SLA auto-tune: a criterion every value meets, so the search doubles to the upper bound
                flag("sla-auto-tune, sla-*", f("--sla-auto-tune", "--sla-variable", "rate", "--sla-params",
                        "{\"avg_latency\": \"<=60\"}", "--sla-num-runs", "1", "--sla-upper-bound", "2",
                        "--sla-lower-bound", "1", "--sla-fixed-parallel", "4", "--sla-number-multiplier", "1",
                        "--max-tokens", "2"), r -> {
                    assertThat(r.ok().requests()).hasSize(3); // rate 1: 1 request, rate 2: 2
                    assertThat(r.root().resolve("sla_summary.json")).exists();
                    assertThat(r.root().resolve("sla_tuning/sla_rate_2_run_0/benchmark_summary.json")).exists();
                    assertThat(r.out()).contains("SLA Auto-tune Summary");
                }),
                // ---- tuning knobs, logging, output
                flag("db-commit-interval (no effect)", f("--db-commit-interval", "10"), r -> assertThat(r.ok().err()).contains("Note: --db-commit-interval")),
                flag("queue/in-flight multipliers (no effect)", f("--queue-size-multiplier", "5", "--in-flight-task-multiplier", "2"),
                        r -> assertThat(r.ok().err()).contains("Note: --queue-size-multiplier")),
                flag("num-workers", f("--num-workers", "2"), r -> assertThat(r.ok().requests()).hasSize(2)),
                flag("log-every-n-query", f("--log-every-n-query", "1"), r -> assertThat(r.ok().err()).contains("1/2").contains("2/2")),
                flag("debug", f("--debug"), r -> assertThat(r.ok().err()).contains("[unibench debug]").contains("request body")),
                flag("enable-progress-tracker", f("--enable-progress-tracker", "--number", "3"), r -> {
                    JsonNode p = r.ok().json("progress.json");
                    assertThat(p.get("status").asText()).isEqualTo("completed");
                    assertThat(p.get("processed_count").asLong()).isEqualTo(3);
                    assertThat(p.get("total_count").asLong()).isEqualTo(3);
                    assertThat(p.get("percent").asDouble()).isEqualTo(100.0);
                }),
                // a search's probe count is not known in advance: no made-up percent (it passed 100 % before)
                flag("enable-progress-tracker, sla-auto-tune", f("--enable-progress-tracker", "--sla-auto-tune",
                        "--sla-params", "{\"avg_latency\": \"<=60\"}", "--sla-num-runs", "1", "--sla-upper-bound", "4",
                        "--sla-number-multiplier", "1", "--max-tokens", "2"), r -> {
                    JsonNode p = r.ok().json("progress.json");
                    assertThat(r.requests()).hasSize(7); // parallel 1, 2 and 4: 1 + 2 + 4 requests
                    assertThat(p.get("status").asText()).isEqualTo("completed");
                    assertThat(p.get("processed_count").asLong()).isEqualTo(7);
                    assertThat(p.get("total_count").asLong()).isEqualTo(7);
                    assertThat(p.get("percent").isNull()).isTrue();
                    assertThat(p.at("/sla_auto_tune/probe_runs_started").asInt()).isEqualTo(3);
                    assertThat(p.at("/sla_auto_tune/upper_bound").asInt()).isEqualTo(4);
                    assertThat(p.at("/sla_auto_tune/state").asText()).isEqualTo("search completed after 3 probe run(s); "
                            + "the answer is in sla_summary.json");
                    assertThat(r.err()).contains("SLA auto-tune probe 3: parallel 4, run 1 of 1; 2 value(s) done; "
                            + "holds at 2, none failed yet: the limit is in [2, 4] (4 requests)");
                }),
                flag("name, outputs-dir", f("--name", "flags-run", "--outputs-dir", "OUT"), r ->
                        assertThat(r.ok().root().resolve("parallel_1_number_2/benchmark_summary.json")).exists()),
                flag("timestamped (without --no-timestamp)", f("--outputs-dir", "OUT", "--no-timestamp-off"), r -> {}),
                // ---- prompt / dataset
                flag("min/max-prompt-length", f("--tokenizer-path", "cl100k_base", "--min-prompt-length", "100", "--max-prompt-length", "100"),
                        r -> assertThat(r.ok().json("parallel_1_number_2/benchmark_summary.json").get("Avg Input Tokens").asDouble())
                                .isBetween(100.0, 120.0)),
                flag("prefix-length", f("--prefix-length", "64", "--min-prompt-length", "80", "--max-prompt-length", "80"), r -> {
                    List<JsonNode> b = r.ok().bodies();
                    String a = b.get(0).at("/messages/0/content").asText();
                    String c = b.get(1).at("/messages/0/content").asText();
                    int common = 0;
                    while (common < Math.min(a.length(), c.length()) && a.charAt(common) == c.charAt(common)) common++;
                    assertThat(common).isGreaterThan(100); // 64 shared tokens are far more than 100 characters
                    assertThat(a).isNotEqualTo(c);
                }),
                flag("prompt", f("--prompt", "Say hi."), r -> {
                    for (JsonNode b : r.ok().bodies()) assertThat(b.at("/messages/0/content").asText()).isEqualTo("Say hi.");
                }),
                flag("query-template", f("--query-template", "{\"user\": \"team-a\", \"messages\": [], \"max_tokens\": 999}"), r -> {
                    JsonNode b = r.ok().body();
                    assertThat(b.get("user").asText()).isEqualTo("team-a");
                    assertThat(b.get("messages")).isNotEmpty();
                    assertThat(b.get("max_tokens").asInt()).isEqualTo(3); // the flags overwrite the template
                }),
                flag("apply-chat-template", f("--apply-chat-template"), r -> assertThat(r.ok().body().has("messages")).isTrue()),
                flag("no-apply-chat-template", f("--no-apply-chat-template"), r -> {
                    assertThat(r.ok().requests().getFirst().path()).isEqualTo("/v1/completions");
                    assertThat(r.body().get("prompt").isTextual()).isTrue();
                }),
                flag("dataset, dataset-path", f("--dataset", "openqa", "--dataset-path", "QA_FILE", "--number", "1",
                        "--min-prompt-length", "0", "--max-prompt-length", "1000"),
                        r -> assertThat(r.ok().body().at("/messages/0/content").asText()).isEqualTo("What is a KV cache?")),
                flag("dataset longalpaca (a JSON array)", f("--dataset", "longalpaca", "--dataset-path", "ALPACA_FILE",
                        "--number", "2", "--min-prompt-length", "0", "--max-prompt-length", "1000"), r -> assertThat(r.ok().bodies())
                        .extracting(b -> b.at("/messages/0/content").asText()).containsExactly("Summarize the paper.", "Name a prime.")),
                flag("api dashscope: refused with why", f("--api", "dashscope"), r -> r.refused("--api 'dashscope': not supported "
                        + "(evalscope's DashScope plugin: use DashScope's OpenAI-compatible endpoint")),
                flag("dataset of evalscope's not here: refused with why", f("--dataset", "random_vl"),
                        r -> r.refused("--dataset random_vl (evalscope's) is not available: an image dataset")),
                flag("data-source local", f("--data-source", "local"), r -> assertThat(r.ok().requests()).hasSize(2)),
                flag("dataset-offset", f("--dataset-offset", "5"), r -> assertThat(r.ok().args().get("dataset_offset").asLong()).isEqualTo(5)),
                // a key the dataset does not read is refused (evalscope's schemas forbid extra keys), never a silent no-op
                flag("dataset-args: a key random_multi_turn does not read", f("--multi-turn", "--max-turns", "2",
                        "--dataset-args", "{\"chars_per_token\": 3.0}", "--number", "1"), r -> r.refused("--dataset-args: "
                        + "'chars_per_token': evalscope's key, not read by --dataset random_multi_turn here (it reads none)")),
                flag("dataset-args: a key of evalscope's text datasets", f("--dataset", "openqa", "--dataset-path", "QA_FILE",
                        "--dataset-args", "{\"target_input_len\": 20}"), r -> r.refused("'target_input_len': evalscope's key")),
                flag("dataset-args: an unknown key", f("--dataset-args", "{\"bogus\": 1}"),
                        r -> r.refused("--dataset-args: 'bogus': unknown key for --dataset random (it reads none)")),
                // ---- generation / body
                flag("max-tokens", f("--max-tokens", "5"), r -> assertThat(r.ok().body().get("max_tokens").asInt()).isEqualTo(5)),
                flag("max-tokens range", f("--max-tokens", "2", "6", "--number", "6"), r -> {
                    for (JsonNode b : r.ok().bodies()) assertThat(b.get("max_tokens").asInt()).isBetween(2, 6);
                }),
                flag("min-tokens", f("--min-tokens", "2"), r -> assertThat(r.ok().body().get("min_tokens").asInt()).isEqualTo(2)),
                flag("frequency-penalty", f("--frequency-penalty", "0.5"), r -> assertThat(r.ok().body().get("frequency_penalty").asDouble()).isEqualTo(0.5)),
                flag("repetition-penalty", f("--repetition-penalty", "1.1"), r -> assertThat(r.ok().body().get("repetition_penalty").asDouble()).isEqualTo(1.1)),
                flag("logprobs", f("--logprobs"), r -> assertThat(r.ok().body().get("logprobs").asBoolean()).isTrue()),
                flag("n-choices", f("--n-choices", "2"), r -> assertThat(r.ok().body().get("n").asInt()).isEqualTo(2)),
                flag("seed", f("--seed", "7"), r -> assertThat(r.ok().body().get("seed").asLong()).isEqualTo(7)),
                flag("stop", f("--stop", "END", "STOP"), r -> assertThat(r.ok().body().get("stop").toString()).isEqualTo("[\"END\",\"STOP\"]")),
                flag("stop-token-ids", f("--stop-token-ids", "1", "2"), r -> assertThat(r.ok().body().get("stop_token_ids").toString()).isEqualTo("[1,2]")),
                flag("stream", f("--stream"), r -> {
                    assertThat(r.ok().body().get("stream").asBoolean()).isTrue();
                    assertThat(r.body().at("/stream_options/include_usage").asBoolean()).isTrue();
                }),
                flag("no-stream", f("--no-stream"), r -> {
                    assertThat(r.ok().body().get("stream").asBoolean()).isFalse();
                    assertThat(r.body().has("stream_options")).isFalse();
                }),
                flag("temperature, top-p, top-k", f("--temperature", "0.7", "--top-p", "0.9", "--top-k", "5"), r -> {
                    JsonNode b = r.ok().body();
                    assertThat(b.get("temperature").asDouble()).isEqualTo(0.7);
                    assertThat(b.get("top_p").asDouble()).isEqualTo(0.9);
                    assertThat(b.get("top_k").asInt()).isEqualTo(5);
                }),
                flag("extra-args", f("--extra-args", "{\"ignore_eos\": true, \"temperature\": 0.3}"), r -> {
                    assertThat(r.ok().body().get("ignore_eos").asBoolean()).isTrue();
                    assertThat(r.body().get("temperature").asDouble()).isEqualTo(0.3); // merged last
                }),
                // ---- multi-turn
                flag("multi-turn, min/max-turns", f("--multi-turn", "--min-turns", "2", "--max-turns", "2", "--number", "1"), r -> {
                    List<JsonNode> b = r.ok().bodies();
                    assertThat(b).hasSize(2);
                    assertThat(b.get(1).get("messages").size()).isEqualTo(3); // user, the model's reply, user
                    assertThat(b.get(1).at("/messages/1/role").asText()).isEqualTo("assistant");
                }),
                flag("multi-turn-args (deprecated alias)", f("--multi-turn", "--max-turns", "1", "--multi-turn-args", "{}", "--number", "1"),
                        r -> assertThat(r.ok().requests()).hasSize(1)),
                // ---- cannot apply: one line naming the flag
                flag("attn-implementation", f("--attn-implementation", "flash"), r -> r.refused("--attn-implementation")),
                flag("port", f("--port", "8001"), r -> r.refused("--port")),
                flag("image-*", f("--image-width", "224", "--image-height", "224", "--image-format", "RGB", "--image-num", "1",
                        "--image-patch-size", "28"), r -> r.refused("--image-*")),
                flag("visualizer", f("--visualizer", "wandb", "--wandb-api-key", "wk-secret123456", "--swanlab-api-key", "local",
                        "--swanlab-host", "h"), r -> {
                    r.refused("--visualizer");
                    assertThat(r.err()).doesNotContain("wk-secret123456");
                }),
                flag("tokenize-prompt", f("--tokenize-prompt", "--tokenizer-path", "cl100k_base"), r -> {
                    assertThat(r.ok().requests().getFirst().path()).isEqualTo("/v1/completions");
                    assertThat(r.body().get("prompt").size()).isEqualTo(16); // --min/--max-prompt-length 16
                    assertThat(r.body().get("prompt").get(0).isInt()).isTrue();
                }),
                flag("tokenize-prompt without a tokenizer", f("--tokenize-prompt"), r -> r.refused("--tokenize-prompt")),
                flag("data-source hub", f("--data-source", "modelscope"), r -> r.refused("--data-source 'modelscope'")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void flagReachesTheWireOrChangesTheRun(String label, String[] flags, Consumer<Result> check) throws IOException {
        Path qa = Files.writeString(tmp.resolve("qa.jsonl"), "{\"question\": \"What is a KV cache?\"}\n");
        Path alpaca = Files.writeString(tmp.resolve("alpaca.json"),
                "[{\"instruction\": \" Summarize the paper.\", \"output\": \"x\"},\n {\"instruction\": \"Name a prime.\"}]");
        List<String> resolved = new ArrayList<>();
        boolean timestamped = Arrays.asList(flags).contains("--no-timestamp-off");
        for (String a : flags) {
            if (a.equals("--no-timestamp-off")) continue;
            resolved.add(switch (a) {
                case "URL_BASE" -> proxy.baseUrl();
                case "URL_USER_INFO" -> proxy.baseUrl().replace("://", "://alice:pw%251@") + "/v1";
                case "QA_FILE" -> qa.toString();
                case "ALPACA_FILE" -> alpaca.toString();
                case "OUT" -> tmp.resolve("named").toString();
                default -> a;
            });
        }
        if (timestamped) {
            CliHarness.Run run = CliHarness.main("perf", "--no-db", "--no-test-connection", "--url",
                    proxy.baseUrl() + "/v1", "--model", "m", "--outputs-dir", tmp.resolve("stamped").toString(),
                    "--number", "1", "--max-tokens", "2", "--sleep-interval", "0");
            assertThat(run.exit()).as(run.err()).isZero();
            try (Stream<Path> dirs = Files.list(tmp.resolve("stamped"))) {
                assertThat(dirs.map(d -> d.getFileName().toString()).toList()).singleElement().asString()
                        .matches("\\d{8}_\\d{6}");
            }
            return;
        }
        check.accept(run(resolved.toArray(String[]::new)));
    }

    /** The table above names every flag of evalscope perf at least once. */
    @Test
    void everyEvalscopeFlagIsExercised() {
        Set<String> used = new LinkedHashSet<>();
        cases().forEach(c -> {
            for (String a : (String[]) c.get()[1]) if (a.startsWith("-")) used.add(a.equals("-n") ? "--number" : a);
        });
        used.addAll(List.of("--url", "--model", "--outputs-dir", "--no-timestamp", "--no-test-connection", "--number",
                "--max-tokens", "--min-prompt-length", "--max-prompt-length", "--sleep-interval")); // run()'s defaults
        assertThat(used).containsAll(EVALSCOPE_FLAGS);
    }

    /** ... and `perf --help` lists each of them, with what it does here. */
    @Test
    void helpListsEveryEvalscopeFlag() {
        String help = CliHarness.main("perf", "--help").out();
        for (String flag : EVALSCOPE_FLAGS) {
            String shown = flag.startsWith("--no-") && !flag.equals("--no-test-connection") && !flag.equals("--no-timestamp")
                    ? "--[no-]" + flag.substring(5) : flag.equals("--stream") || flag.equals("--apply-chat-template")
                    ? "--[no-]" + flag.substring(2) : flag;
            assertThat(help).as(flag).contains(shown);
        }
    }
}
