package io.unibench.scrape;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The parser and the engine mapping on the committed fixtures (one per engine) and on the format's corners. */
class ExpositionTest {

    static String fixture(String name) throws IOException {
        try (InputStream in = ExpositionTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static ServerSample sample(String fixture, ServerEngine expected) throws IOException {
        Exposition e = Exposition.parse(fixture(fixture));
        assertThat(e.problems()).as(fixture).isEmpty();
        assertThat(ServerEngine.detect(e)).isEqualTo(expected);
        return expected.sample(e, 7);
    }

    @Test
    void vllmSumsTheGaugesOfItsEnginesAndAveragesTheKvCacheUse() throws IOException {
        ServerSample s = sample("vllm.txt", ServerEngine.VLLM);
        assertThat(s.running()).isEqualTo(22);
        assertThat(s.waiting()).isEqualTo(4);
        assertThat(s.kvUse()).isCloseTo(0.4, within(1e-9));
        assertThat(s.prefixQueries()).isEqualTo(160_000);
        assertThat(s.prefixHits()).isEqualTo(64_000);
        assertThat(s.generated()).isEqualTo(100_000);
        assertThat(s.prompt()).isEqualTo(400_000);
        assertThat(s.prefixHitRate()).isNaN();
        assertThat(s.epochMs()).isEqualTo(7);
        Exposition e = Exposition.parse(fixture("vllm.txt"));
        assertThat(e.types()).containsEntry("vllm:time_to_first_token_seconds", "histogram")
                .containsEntry("vllm:num_requests_running", "gauge");
        assertThat(e.named("vllm:cache_config_info").getFirst().labels()).containsEntry("num_gpu_blocks", "29127");
        assertThat(e.named("process_resident_memory_bytes").getFirst().value()).isEqualTo(4.123456512e9);
        assertThat(e.named("vllm:time_to_first_token_seconds_bucket").get(2).labels()).containsEntry("le", "+Inf");
    }

    @Test
    void oldVllmNamesStillMap() throws IOException {
        ServerSample s = sample("vllm-old.txt", ServerEngine.VLLM);
        assertThat(s.running()).isEqualTo(4);
        assertThat(s.kvUse()).isEqualTo(0.125);
        assertThat(s.prefixHitRate()).isEqualTo(0.62);
        assertThat(s.prefixHits()).isNaN();
    }

    @Test
    void sglang() throws IOException {
        ServerSample s = sample("sglang.txt", ServerEngine.SGLANG);
        assertThat(s.running()).isEqualTo(28);
        assertThat(s.waiting()).isEqualTo(5);
        assertThat(s.kvUse()).isEqualTo(0.28);
        assertThat(s.prefixHitRate()).isEqualTo(0.43);
        assertThat(s.generated()).isEqualTo(7_557_572);
    }

    @Test
    void tgi() throws IOException {
        ServerSample s = sample("tgi.txt", ServerEngine.TGI);
        assertThat(s.running()).isEqualTo(32);
        assertThat(s.waiting()).isEqualTo(6);
        assertThat(s.kvUse()).isNaN();
        assertThat(s.generated()).isEqualTo(301_542);
        assertThat(s.prompt()).isEqualTo(812_345);
    }

    @Test
    void llamacpp() throws IOException {
        ServerSample s = sample("llamacpp.txt", ServerEngine.LLAMACPP);
        assertThat(s.running()).isEqualTo(2);
        assertThat(s.waiting()).isEqualTo(1);
        assertThat(s.kvUse()).isEqualTo(0.41);
        assertThat(s.generated()).isEqualTo(9120);
        assertThat(s.prefixHits()).isNaN(); // this older build's exposition has no cached-prompt counter
    }

    /** Captured from a real llama-server (build b0 of 2026-08-22, --metrics) after two replies: 36 of 74 cached. */
    @Test
    void llamacppOfARealBuildGivesItsPrefixHitsAndNoKvGauge() throws IOException {
        ServerSample s = sample("llamacpp-real.txt", ServerEngine.LLAMACPP);
        assertThat(s.running()).isEqualTo(0);
        assertThat(s.prefixHits()).isEqualTo(36);
        assertThat(s.prefixQueries()).isEqualTo(36 + 38);
        assertThat(s.kvUse()).isNaN();
        assertThat(s.generated()).isEqualTo(16);
    }

    @Test
    void escapesSpecialValuesTimestampsAndExemplars() {
        Exposition e = Exposition.parse("""
                # a free comment
                # TYPE x counter
                x{path="C:\\\\dir",msg="say \\"hi\\"\\nbye",} 1.5e3 1700000000000
                y NaN
                z{a="1"} +Inf
                w -Inf
                requests_total{code="200"} 42 # {trace_id="abc"} 1.0
                # EOF
                """);
        assertThat(e.problems()).isEmpty();
        Exposition.Sample x = e.named("x").getFirst();
        assertThat(x.value()).isEqualTo(1500);
        assertThat(x.labels()).isEqualTo(Map.of("path", "C:\\dir", "msg", "say \"hi\"\nbye"));
        assertThat(e.named("y").getFirst().value()).isNaN();
        assertThat(e.named("z").getFirst().value()).isInfinite().isPositive();
        assertThat(e.named("w").getFirst().value()).isInfinite().isNegative();
        assertThat(e.named("requests_total").getFirst().value()).isEqualTo(42);
        assertThat(e.types()).containsEntry("x", "counter");
    }

    @Test
    void aBadLineIsSkippedAndNamedTheRestIsKept() {
        Exposition e = Exposition.parse("good 1\nbad{a=1} 2\nworse{a=\"x\"}\n9starts_with_digit 3\nnum notanumber\nok 4\n");
        assertThat(e.samples()).extracting(Exposition.Sample::name).containsExactly("good", "ok");
        assertThat(e.problems()).hasSize(4);
        assertThat(e.problems().get(0)).startsWith("line 2: label a has no quoted value");
        assertThat(e.problems().get(1)).startsWith("line 3: no value for worse");
        assertThat(e.problems().get(3)).startsWith("line 5: value of num is not a number");
    }

    @Test
    void anUnknownEngineIsNotDetected() {
        assertThat(ServerEngine.detect(Exposition.parse("http_requests_total 3\n"))).isNull();
    }
}
