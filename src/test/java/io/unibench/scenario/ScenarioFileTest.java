package io.unibench.scenario;

import io.unibench.BadInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Scenario files: a good one parses to the expected values; each bad one fails with one exact line. */
class ScenarioFileTest {
    private static final Map<String, String> ENV = Map.of("DEEPSEEK_API_KEY", "sk-test-123456");

    @TempDir
    Path dir;

    @Test
    void seedExampleParses() throws Exception {
        Path file = write("bench.yaml", """
                provider:
                  name: deepseek_test
                  base_url: https://api.deepseek.com/v1
                  model: deepseek-chat
                  api_key_env: DEEPSEEK_API_KEY
                  headers: {X-Team: bench}
                  price: {input: 2, cached_input: 0.5, output: 8}
                generation:
                  temperature: 0
                  max_tokens: 512
                concurrency:
                  start: 1
                  peak: 32
                  step: 4
                  ramp_interval_sec: 10
                scenarios:
                  - name: single_turn_short
                    type: chat
                    stream: false
                    rounds: 50
                    prompt: 请用一句话解释什么是数据库索引。
                    cache_bust: true
                    validate: {choices_non_empty: true, content_regex: "索引"}
                  - name: multi_turn_with_history
                    type: multi_turn
                    stream: true
                    rounds: 30
                    conversation_history: 5
                """);
        BenchConfig c = ScenarioFile.load(file, ENV);
        assertThat(c.name()).isEqualTo("bench");
        assertThat(c.providers()).hasSize(1);
        BenchConfig.Provider p = c.providers().getFirst();
        assertThat(p.apiKeyEnv()).isEqualTo("DEEPSEEK_API_KEY");
        assertThat(p.headers()).containsEntry("X-Team", "bench");
        assertThat(p.price()).isEqualTo(new BenchConfig.Price(2, 0.5, 8));
        assertThat(c.concurrency().levels()).containsExactly(1, 5, 9, 13, 17, 21, 25, 29, 32);
        assertThat(c.concurrency().holdSeconds()).isEqualTo(10.0);
        assertThat(c.rateLimitPerSec()).isEqualTo(64.0); // twice the peak
        assertThat(c.connectionPool()).isEqualTo(64);
        assertThat(c.scenarios()).extracting(BenchConfig.Scenario::rounds).containsExactly(50, 30);
        assertThat(c.scenarios().get(0).stream()).isFalse();
        assertThat(c.scenarios().get(0).cacheBust()).isTrue();
        assertThat(c.scenarios().get(0).validate().contentRegex().pattern()).isEqualTo("索引");
        assertThat(c.scenarios().get(1).conversationHistory()).isEqualTo(5);
        assertThat(c.generation().params("m", true, null).maxTokensMax()).isEqualTo(512);
    }

    static Stream<Arguments> badFiles() {
        String provider = """
                provider: {name: p, base_url: sim, model: m}
                """;
        String scenarios = """
                scenarios:
                  - {name: s, type: chat, prompt: hi}
                """;
        String httpsProvider = """
                provider:
                  name: p
                  base_url: https://127.0.0.1:9/v1
                  model: m
                  ca_cert: /nonexistent/ca.pem
                """;
        return Stream.of(
                Arguments.of("literal key", """
                        provider:
                          name: p
                          base_url: https://api.example.com/v1
                          model: m
                          api_key: sk-abcdef1234567890
                        """ + scenarios,
                        "bad.yaml:5: provider.api_key: a literal API key is refused: put it in an environment variable"
                                + " and name that variable with api_key_env"),
                Arguments.of("key in api_key_env", """
                        provider:
                          name: p
                          base_url: https://api.example.com/v1
                          model: m
                          api_key_env: sk-abcdef1234567890
                        """ + scenarios,
                        "bad.yaml:5: provider.api_key_env: must be the name of an environment variable (letters,"
                                + " digits, _), not the key itself"),
                Arguments.of("unset variable", """
                        provider:
                          name: p
                          base_url: https://api.example.com/v1
                          model: m
                          api_key_env: NOT_SET_ANYWHERE
                        """ + scenarios,
                        "bad.yaml:5: provider.api_key_env: environment variable NOT_SET_ANYWHERE is not set"),
                Arguments.of("unknown key", provider + """
                        scenarios:
                          - name: s
                            type: chat
                            promt: hi
                        """,
                        "bad.yaml:5: scenarios[0].promt: unknown key (allowed: name, type, stream, rounds, prompt, system,"
                                + " dataset, dataset_path, trace_speedup, min_prompt_length, max_prompt_length, conversation_history,"
                                + " max_tokens, classes, cache_bust, validate)"),
                Arguments.of("wrong type", provider + """
                        concurrency:
                          start: 1
                          peak: lots
                          step: 2
                        """ + scenarios,
                        "bad.yaml:4: concurrency.peak: must be an integer, got a string (\"lots\")"),
                Arguments.of("missing required", """
                        providers:
                          - name: a
                            base_url: sim
                            model: m
                          - name: b
                            base_url: sim
                        """ + scenarios,
                        "bad.yaml:5: providers[1]: missing required key 'model'"),
                Arguments.of("no scenarios", provider,
                        "bad.yaml:1: missing required key 'scenarios'"),
                Arguments.of("bad enum", provider + """
                        scenarios:
                          - name: s
                            type: batch
                            prompt: hi
                        """,
                        "bad.yaml:4: scenarios[0].type: must be one of chat, multi_turn, mixed; got a string (\"batch\")"),
                Arguments.of("below minimum", provider + """
                        scenarios:
                          - name: s
                            type: chat
                            prompt: hi
                            rounds: 0
                        """,
                        "bad.yaml:6: scenarios[0].rounds: must be >= 1, got 0"),
                Arguments.of("concurrency shape", provider + """
                        concurrency: "8"
                        """ + scenarios,
                        "bad.yaml:2: concurrency: must be an integer, a list of levels, or {fixed | start, peak, step |"
                                + " levels} with ramp_interval_sec or requests_per_level"),
                Arguments.of("ramp upside down", provider + """
                        concurrency: {start: 16, peak: 4, step: 2}
                        """ + scenarios,
                        "bad.yaml:2: concurrency.peak: must be >= start (16), got 4"),
                Arguments.of("two prompt sources", provider + """
                        scenarios:
                          - name: s
                            type: chat
                            prompt: hi
                            dataset: openqa
                        """,
                        "bad.yaml:3: scenarios[0]: type chat needs exactly one of prompt and dataset"),
                Arguments.of("multi-turn without history", provider + """
                        scenarios:
                          - name: s
                            type: multi_turn
                        """,
                        "bad.yaml:3: scenarios[0]: type multi_turn needs conversation_history or a dataset"),
                Arguments.of("bad regex", provider + """
                        scenarios:
                          - name: s
                            type: chat
                            prompt: hi
                            validate:
                              content_regex: "([a-z]"
                        """,
                        "bad.yaml:7: scenarios[0].validate.content_regex: not a valid regular expression: Unclosed group"),
                Arguments.of("both provider forms", provider + """
                        providers:
                          - {name: q, base_url: sim, model: m}
                        """ + scenarios,
                        "bad.yaml:2: providers: give either provider or providers, not both"),
                Arguments.of("yaml syntax", """
                        provider: {name: p, base_url: sim, model: m
                        scenarios: []
                        """,
                        "bad.yaml:2: YAML syntax error: while parsing a flow mapping"),
                Arguments.of("duplicate key", provider + """
                        scenarios:
                          - name: s
                            type: chat
                            prompt: hi
                            prompt: again
                        """,
                        "bad.yaml:6: YAML syntax error: Duplicate field 'prompt'"),
                Arguments.of("price not a number", """
                        provider:
                          name: p
                          base_url: sim
                          model: m
                          price:
                            input: 1
                            output: cheap
                        """ + scenarios,
                        "bad.yaml:7: provider.price.output: must be a number, got a string (\"cheap\")"),
                Arguments.of("missing CA file", httpsProvider + scenarios,
                        "bad.yaml:5: provider.ca_cert: /nonexistent/ca.pem: no such file"),
                Arguments.of("CA file and insecure", httpsProvider + "  insecure: true\n" + scenarios,
                        "bad.yaml:6: provider.insecure: give ca_cert or insecure, not both (insecure checks no "
                                + "certificate at all)"),
                Arguments.of("rate limit zero", provider + """
                        rate_limit: 0
                        """ + scenarios,
                        "bad.yaml:2: rate_limit: must be > 0, got 0"),
                Arguments.of("pool below peak", provider + """
                        concurrency: [1, 8, 32]
                        connection_pool: 16
                        """ + scenarios,
                        "bad.yaml:3: connection_pool: must be at least the peak concurrency (32), or requests queue in"
                                + " the client and the latencies are the client's"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void badFileNamesFileLineAndKeyPath(String what, String yaml, String message) throws Exception {
        Path file = write("bad.yaml", yaml);
        assertThatThrownBy(() -> ScenarioFile.load(file, ENV))
                .isInstanceOf(BadInputException.class)
                .hasMessage(message);
    }

    @Test
    void literalKeyIsNeverEchoed() throws Exception {
        Path file = write("bad.yaml", """
                provider: {name: p, base_url: sim, model: m, api_key: sk-secret-value-123}
                scenarios: [{name: s, type: chat, prompt: hi}]
                """);
        assertThatThrownBy(() -> ScenarioFile.load(file, ENV)).message().doesNotContain("sk-secret");
    }

    @Test
    void shippedExamplesAreValid() {
        for (String name : List.of("sim-quick.yaml", "two-providers.yaml", "multi-turn.yaml")) {
            Path example = Path.of("examples", name);
            assertThat(ScenarioFile.load(example, Map.of())).as(name).isNotNull();
        }
    }

    @Test
    void guideExampleIsValid() throws Exception {
        String page = Files.readString(Path.of("docs", "scenarios.md"));
        int start = page.indexOf("```yaml\n") + "```yaml\n".length();
        String yaml = page.substring(start, page.indexOf("```", start));
        BenchConfig c = ScenarioFile.parse("docs/scenarios.md", yaml, ENV);
        assertThat(c.providers()).hasSize(2);
        assertThat(c.scenarios()).hasSize(4);
        assertThat(c.concurrency().levels()).containsExactly(1, 5, 9, 13, 17, 21, 25, 29, 32);
    }

    private Path write(String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }
}
