package io.unibench.check;

import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import io.unibench.engine.selfcheck.Calibration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every check against the embedded simulator over loopback, through the real client: PASS when it behaves, FAIL
 * when it has the misbehaviour the check exists to catch.
 */
class CheckBatteryTest {
    private static final String MODEL = "check-model";
    /** Small limits: the load checks' bursts stay a few dozen requests and their refusals come at once. */
    private static final Map<String, Object> HEALTHY = Map.of("allowed-models", List.of(MODEL), "max-num-seqs", 2,
            "max-queue", 2, "max-queue-wait-ms", 200.0, "max-model-len", 8192);

    private static Verdict run(String check, Map<String, Object> knobs) throws InterruptedException {
        return run(check, knobs, Duration.ofSeconds(5), Duration.ofMillis(1500), true);
    }

    private static Verdict run(String check, Map<String, Object> knobs, Duration timeout, Duration settle,
                               boolean metrics) throws InterruptedException {
        return run(check, knobs, timeout, settle, metrics, List.of());
    }

    private static Verdict run(String check, Map<String, Object> knobs, Duration timeout, Duration settle,
                               boolean metrics, List<String> servedModels) throws InterruptedException {
        return run(check, knobs, timeout, settle, metrics, servedModels, 2, Map.of());
    }

    /**
     * @param limit {@code --concurrency-limit}; null = found by the ramp
     * @param env   where the check's session reads a stored client ceiling
     */
    private static Verdict run(String check, Map<String, Object> knobs, Duration timeout, Duration settle,
                               boolean metrics, List<String> servedModels, Integer limit, Map<String, String> env)
            throws InterruptedException {
        Map<String, Object> all = new HashMap<>(HEALTHY);
        all.putAll(knobs);
        try (SimServer sim = SimServer.start(SimConfig.defaults().withModel(MODEL).with(all))) {
            URI endpoint = URI.create(sim.baseUrl() + "/v1/chat/completions");
            URI scrape = metrics ? URI.create(sim.baseUrl() + "/metrics") : null;
            CheckSettings settings = new CheckSettings(endpoint, MODEL, Map.of(), timeout, limit, settle, true, scrape,
                    servedModels);
            List<Verdict> seen = new ArrayList<>();
            CheckReport report = CheckSuite.run(settings, Set.of(check), seen::add, env);
            assertThat(report.verdicts()).hasSize(1).isEqualTo(seen);
            return report.verdicts().getFirst();
        }
    }

    private static void passes(String check) throws InterruptedException {
        Verdict v = run(check, Map.of());
        assertThat(v.status()).as(v.line()).isEqualTo(Verdict.Status.PASS);
    }

    private static Verdict fails(String check, Map<String, Object> knobs) throws InterruptedException {
        Verdict v = run(check, knobs);
        assertThat(v.status()).as(v.line()).isEqualTo(Verdict.Status.FAIL);
        return v;
    }

    @Test void streamFormat() throws InterruptedException {
        passes("stream-format");
        assertThat(fails("stream-format", Map.of("fault-rate-missing-done", 1.0)).line()).contains("not [DONE]");
        assertThat(fails("stream-format", Map.of("misbehave-omit-usage", true)).line()).contains("no usage");
        assertThat(fails("stream-format", Map.of("fault-rate-malformed-sse", 1.0)).line()).isNotBlank();
    }

    @Test void everyProbeOfStreamFormatHasItsLineEvenAfterOneFailed() throws InterruptedException {
        Verdict v = fails("stream-format", Map.of("fault-rate-missing-done", 1.0));
        assertThat(v.probes()).extracting(Verdict.Probe::name)
                .containsExactly("stream", "raw events", "non-streamed usage");
        assertThat(v.probes().get(1).status()).isEqualTo(Verdict.Status.FAIL);
        assertThat(v.probes().get(1).evidence()).contains("not [DONE]");
        assertThat(v.probes().get(2).status()).as(v.line()).isEqualTo(Verdict.Status.PASS); // judged after a failure
    }

    @Test void streamIncremental() throws InterruptedException {
        passes("stream-incremental");
        assertThat(fails("stream-incremental", Map.of("misbehave-buffer-stream", true)).evidence()).contains("burst");
    }

    @Test void errorsAreErrors() throws InterruptedException {
        Verdict ok = run("errors-are-errors", Map.of());
        assertThat(ok.status()).as(ok.line()).isEqualTo(Verdict.Status.PASS);
        assertThat(ok.evidence()).isEqualTo("3 probes: 3 passed");
        assertThat(ok.probes()).extracting(Verdict.Probe::name)
                .containsExactly("malformed body", "unknown model", "oversize prompt");
        assertThat(ok.probes()).allMatch(p -> p.status() == Verdict.Status.PASS);
        assertThat(ok.probes().get(2).evidence()).isEqualTo("→ 400 (9192 words, /v1/models max_model_len 8192 + 1000; "
                + "the server names its limit 8192)");
        // every probe has its verdict: the first one's problem does not hide the others'
        Verdict bad = fails("errors-are-errors", Map.of("misbehave-errors-as-200", true));
        assertThat(bad.evidence()).isEqualTo("3 probes: 3 failed");
        assertThat(bad.probes()).allSatisfy(p -> assertThat(p.evidence()).contains("HTTP 200 with an error object"));
    }

    /**
     * A server that serves any model name (llama.cpp, SGLang, {@code unibench sim} by default) is told, not failed
     * (issue 27: the project's own simulator failed its own check); with the served models declared it is a FAIL.
     */
    @Test void aServerThatServesAnyModelNameIsAWarningUnlessTheServedModelsAreDeclared() throws InterruptedException {
        Map<String, Object> anyName = Map.of("allowed-models", List.of());
        Verdict warned = run("errors-are-errors", anyName);
        assertThat(warned.status()).as(warned.line()).isEqualTo(Verdict.Status.WARN);
        assertThat(warned.evidence()).isEqualTo("3 probes: 2 passed, 1 warned");
        assertThat(warned.probes().get(1).line()).contains("WARN  unknown model: HTTP 200: the server answers any "
                + "model name", "--served-models");
        Verdict declared = run("errors-are-errors", anyName, Duration.ofSeconds(5), Duration.ofMillis(1500), true,
                List.of(MODEL));
        assertThat(declared.status()).as(declared.line()).isEqualTo(Verdict.Status.FAIL);
        assertThat(declared.probes().get(1).evidence()).contains("HTTP 200 as if it succeeded",
                "the served models are " + MODEL);
        assertThat(declared.probes().get(0).status()).isEqualTo(Verdict.Status.PASS); // still judged on their own
        assertThat(declared.probes().get(2).status()).isEqualTo(Verdict.Status.PASS);
    }

    /** The oversize prompt is sized from the context the server advertises, llama.cpp's way too; else it says so. */
    @Test void theOversizePromptIsSizedFromTheAdvertisedContext() throws InterruptedException {
        Verdict props = run("errors-are-errors", Map.of("context-advertised", "props", "max-model-len", 4096));
        assertThat(props.probes().get(2).evidence()).startsWith("→ 400 (5096 words, /props n_ctx 4096 + 1000");
        Verdict none = run("errors-are-errors", Map.of("context-advertised", "none", "max-model-len", 4096));
        assertThat(none.probes().get(2).evidence()).startsWith("→ 400 (301000 words, no context length advertised");
    }

    @Test void maxTokens() throws InterruptedException {
        passes("max-tokens");
        assertThat(fails("max-tokens", Map.of("misbehave-ignore-max-tokens", true, "mean-output-tokens", 400)).line()).contains("more than asked");
    }

    @Test void stop() throws InterruptedException {
        passes("stop");
        assertThat(fails("stop", Map.of("misbehave-ignore-stop", true)).line()).contains("contains the stop string");
    }

    @Test void ignoreEos() throws InterruptedException {
        passes("ignore-eos");
        assertThat(fails("ignore-eos", Map.of("misbehave-ignore-ignore-eos", true)).evidence()).contains("not honoured");
    }

    @Test void determinism() throws InterruptedException {
        passes("determinism");
        assertThat(fails("determinism", Map.of("misbehave-nondeterministic", true)).evidence()).contains("part at");
        // a fingerprint of its own per reply: the server says it may answer differently, so a difference is a WARN
        Verdict warned = run("determinism", Map.of("misbehave-nondeterministic", true, "misbehave-rotate-fingerprint", true));
        assertThat(warned.status()).as(warned.line()).isEqualTo(Verdict.Status.WARN);
        assertThat(warned.evidence()).contains("part at", "not judged", "fp_sim_1 → fp_sim_2");
        // ... and no difference still passes, fingerprints or not
        Verdict same = run("determinism", Map.of("misbehave-rotate-fingerprint", true));
        assertThat(same.status()).as(same.line()).isEqualTo(Verdict.Status.PASS);
    }

    @Test void cacheReported() throws InterruptedException {
        passes("cache-reported");
        assertThat(fails("cache-reported", Map.of("report-cached-tokens", false)).evidence()).contains("no prompt_tokens_details");
        assertThat(fails("cache-reported", Map.of("prefix-caching", false)).evidence()).contains("cached_tokens 0");
    }

    @Test void overloadBounded() throws InterruptedException {
        Verdict ok = run("overload-bounded", Map.of());
        assertThat(ok.status()).as(ok.line()).isEqualTo(Verdict.Status.PASS);
        assertThat(ok.evidence()).contains("Retry-After: 1");
        Verdict unbounded = run("overload-bounded", Map.of("max-queue", 1000, "max-queue-wait-ms", 0.0),
                Duration.ofMillis(500), Duration.ofSeconds(1), true);
        assertThat(unbounded.status()).as(unbounded.line()).isEqualTo(Verdict.Status.FAIL);
        assertThat(unbounded.evidence()).contains("not bounded");
    }

    @Test void cancellationPropagates() throws InterruptedException {
        passes("cancellation-propagates");
        Verdict ignored = fails("cancellation-propagates", Map.of("misbehave-ignore-cancel", true));
        assertThat(ignored.line()).contains("keeps generating");
        assertThat(ignored.probes()).extracting(Verdict.Probe::name)
                .containsExactly("running back to baseline", "generated tokens stop");
    }

    @Test void cancellationWithoutMetricsTimesANewRequest() throws InterruptedException {
        Verdict ok = run("cancellation-propagates", Map.of(), Duration.ofSeconds(8), Duration.ofMillis(1500), false);
        assertThat(ok.status()).as(ok.line()).isEqualTo(Verdict.Status.PASS);
        Verdict bad = run("cancellation-propagates", Map.of("misbehave-ignore-cancel", true), Duration.ofSeconds(8),
                Duration.ofMillis(1500), false);
        assertThat(bad.status()).as(bad.line()).isEqualTo(Verdict.Status.FAIL);
        assertThat(bad.evidence()).contains("after cancelling 2 streams", "not freed");
    }

    @Test void queueDrains() throws InterruptedException {
        passes("queue-drains");
        assertThat(fails("queue-drains", Map.of("misbehave-leak-cancelled", true)).evidence()).contains("after the last reply");
        Verdict none = run("queue-drains", Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(1), false);
        assertThat(none.status()).isEqualTo(Verdict.Status.SKIP);
    }

    @Test void recovery() throws InterruptedException {
        passes("recovery");
        assertThat(fails("recovery", Map.of("misbehave-latch-overload", true)).line()).contains("does not recover");
    }

    @Test void everyLevelOfRecoveryHasItsLine() throws InterruptedException {
        Verdict latched = fails("recovery", Map.of("misbehave-latch-overload", true));
        assertThat(latched.probes()).extracting(Verdict.Probe::name)
                .containsExactly("burst of 10", "1 concurrent", "2 concurrent");
        assertThat(latched.probes()).extracting(Verdict.Probe::status)
                .containsExactly(Verdict.Status.PASS, Verdict.Status.FAIL, Verdict.Status.FAIL);
    }

    /**
     * A machine whose stored client ceiling is 1 req/s ({@code unibench calibrate}'s file): every point of two or
     * more requests the check's session runs asks more than half of it, so its verdict is client-bound.
     */
    private static Map<String, String> slowClient(Path home) {
        new Calibration(1, 1, 1, 1, 1, 10, 10, 1, "jvm", "os", "test", "2026-01-01T00:00:00Z")
                .write(home.resolve(Calibration.FILE_NAME));
        return Map.of("UNIBENCH_HOME", home.toString());
    }

    /**
     * The overload burst runs as a point of the session runner: when its verdict says the client was the bottleneck,
     * an unbounded wait is not blamed on the server (before: FAIL "not bounded", whatever the client did).
     */
    @Test void anOverloadFailureOnAClientBoundPointIsNotBlamedOnTheServer(@TempDir Path home) throws InterruptedException {
        Verdict v = run("overload-bounded", Map.of("max-queue", 1000, "max-queue-wait-ms", 0.0), Duration.ofMillis(500),
                Duration.ofSeconds(1), true, List.of(), 2, slowClient(home));
        assertThat(v.status()).as(v.line()).isEqualTo(Verdict.Status.SKIP);
        assertThat(v.evidence()).contains("not bounded", "not judged", "the client was the bottleneck of this point",
                "client-bound: asked ", "of this machine's calibrated 1 req/s");
    }

    /**
     * The concurrency ramp's levels are points of the check's session: a level whose verdict is client-bound ends the
     * ramp, and the checks that use the limit say it is the client's (level 1 is one request: no rate, so judged;
     * level 2 is the first client-bound one).
     */
    @Test void aRampStoppedByTheClientSaysTheLimitIsTheClients(@TempDir Path home) throws InterruptedException {
        Verdict v = run("overload-bounded", Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(1), true, List.of(),
                null, slowClient(home));
        assertThat(v.evidence()).as(v.line()).contains("5 streams at limit 1:", "the limit is the client's, not the "
                + "server's: the ramp stopped at 2 concurrent, where the client was the bottleneck (client-bound: ");
    }

    /** Without a limit given, the ramp's points find one on the healthy simulator and the check passes there. */
    @Test void theRampFindsALimitTheOverloadCheckPassesAt() throws InterruptedException {
        Verdict v = run("overload-bounded", Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(1), true, List.of(),
                null, Map.of());
        assertThat(v.status()).as(v.line()).isEqualTo(Verdict.Status.PASS);
        assertThat(v.evidence()).containsPattern("^\\d+ streams at limit \\d+: ").doesNotContain("bottleneck");
    }

    /** A recovery level that fails on a client-bound point is SKIP, saying so; the lone request's level still fails. */
    @Test void aRecoveryLevelOnAClientBoundPointIsNotJudged(@TempDir Path home) throws InterruptedException {
        Verdict latched = run("recovery", Map.of("misbehave-latch-overload", true), Duration.ofSeconds(5),
                Duration.ofMillis(1500), true, List.of(), 2, slowClient(home));
        assertThat(latched.status()).as(latched.line()).isEqualTo(Verdict.Status.FAIL);
        assertThat(latched.probes()).extracting(Verdict.Probe::name)
                .containsExactly("burst of 10", "1 concurrent", "2 concurrent");
        assertThat(latched.probes()).extracting(Verdict.Probe::status)
                .containsExactly(Verdict.Status.PASS, Verdict.Status.FAIL, Verdict.Status.SKIP);
        assertThat(latched.probes().get(2).evidence()).contains("not judged; the client was the bottleneck");
    }

    /**
     * The load checks' session runs the engine's connection test before its first point: a model the server does not
     * serve is that check's FAIL line with the server's message (before: a burst of 400s, "failed otherwise"), and
     * no flag of another command is named.
     */
    @Test void theSessionsConnectionTestFailingIsTheCheckFailLine() throws InterruptedException {
        Map<String, Object> knobs = new HashMap<>(HEALTHY);
        knobs.put("allowed-models", List.of("other"));
        try (SimServer sim = SimServer.start(SimConfig.defaults().withModel("other").with(knobs))) {
            CheckSettings settings = new CheckSettings(URI.create(sim.baseUrl() + "/v1/chat/completions"), MODEL,
                    Map.of(), Duration.ofSeconds(5), 2, Duration.ofSeconds(1), true, null);
            Verdict v = CheckSuite.run(settings, Set.of("overload-bounded"), x -> { }).verdicts().getFirst();
            assertThat(v.status()).as(v.line()).isEqualTo(Verdict.Status.FAIL);
            assertThat(v.evidence()).startsWith("connection test to ").contains("HTTP 400", "does not exist")
                    .doesNotContain("--no-test-connection");
        }
    }
}
