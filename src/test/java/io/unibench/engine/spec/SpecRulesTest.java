package io.unibench.engine.spec;

import io.unibench.BadInputException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SpecRulesTest {
    @Test
    void oneRuleSetLocatedByFlagNameOrJsonPointer() {
        SpecRules flags = new SpecRules(SpecPaths.FLAGS).point(0, 4, 0, -1, null, 0).point(1, 0, 5, 0, -2.0, -1);
        assertThat(flags.errors()).extracting(SpecError::line).containsExactly("--number 0: must be ≥ 1",
                "--parallel 0: must be ≥ 1", "--rate 0.0: must be a finite rate > 0, or -1 for none",
                "--duration must be > 0 seconds", "--warmup-num must be ≥ 0");
        SpecRules json = new SpecRules(SpecPaths.JSON_POINTERS).point(1, 0, 5, -1, null, 0)
                .generation(List.of(8, 4), -1, -0.5, 1.5, -2).timeouts(0, 0.0, null, -1.0);
        assertThat(json.errors()).extracting(SpecError::line).containsExactly(
                "/points/1/plan/parallel: 0: must be ≥ 1",
                "/workloads/0/generation/max_tokens_min: [8, 4]: need 1 ≤ MIN ≤ MAX",
                "/workloads/0/generation/min_tokens: -1: must be ≥ 0",
                "/workloads/0/generation/temperature: -0.5: must be ≥ 0",
                "/workloads/0/generation/top_p: 1.5: must be in (0, 1]",
                "/workloads/0/generation/top_k: -2: must be ≥ 1, or -1 (or 0) for none",
                "/targets/0/timeouts/connect: 0.0: must be > 0 seconds",
                "/targets/0/timeouts/total: must be > 0");
    }

    @Test
    void goodValuesPassAndTheFirstErrorIsTheOneLineOfBadInput() {
        SpecRules ok = new SpecRules(SpecPaths.FLAGS).point(0, 1, 1, 12.5, 3.0, 0.5).pause(0, 0)
                .generation(List.of(1), 0, 0, 1.0, -1).timeouts(0, 1.0, 2.0, 3.0);
        assertThat(ok.errors()).isEmpty();
        ok.throwFirst(); // nothing
        SpecRules bad = new SpecRules(SpecPaths.FLAGS).pause(0, -1).generation(List.of(0), null, 0, null, null);
        assertThatThrownBy(bad::throwFirst).isInstanceOf(BadInputException.class)
                .hasMessage("--sleep-interval must be ≥ 0");
    }

    @Test
    void tokenIdPromptsNeedATokenizerUnlessOnlyTheEmbeddedSimulatorIsSent() {
        assertThat(new SpecRules(SpecPaths.FLAGS).tokenizePrompt(0, true, null, false).errors())
                .extracting(SpecError::line).containsExactly("--tokenize-prompt needs --tokenizer-path: the ids must be "
                        + "the served model's (only the embedded simulator's own tokenizer needs none)");
        assertThat(new SpecRules(SpecPaths.JSON_POINTERS).tokenizePrompt(1, true, null, false).errors())
                .extracting(SpecError::line).containsExactly("/workloads/1/options/tokenize_prompt: needs "
                        + "/workloads/1/options/tokenizer_path: the ids must be the served model's (only the embedded "
                        + "simulator's own tokenizer needs none)");
        assertThat(new SpecRules(SpecPaths.FLAGS).tokenizePrompt(0, true, null, true).errors()).isEmpty();
        assertThat(new SpecRules(SpecPaths.FLAGS).tokenizePrompt(0, true, "cl100k_base", false).errors()).isEmpty();
        assertThat(new SpecRules(SpecPaths.FLAGS).tokenizePrompt(0, false, null, false).errors()).isEmpty();
    }

    @Test
    void anApiKeyIsShownByReferenceOrMaskedNeverInClear() {
        RunSpec.ApiKey literal = RunSpec.ApiKey.of("sk-secret-value-1234");
        assertThat(literal.toString()).doesNotContain("secret-value").endsWith("234");
        assertThat(literal.resolve(Map.of())).isEqualTo("sk-secret-value-1234");
        RunSpec.ApiKey ref = RunSpec.ApiKey.fromEnv("MY_KEY");
        assertThat(ref.toString()).isEqualTo("$MY_KEY");
        assertThat(ref.resolve(Map.of("MY_KEY", "sk-xyz"))).isEqualTo("sk-xyz");
        assertThat(RunSpec.ApiKey.NONE.resolve(Map.of("MY_KEY", "sk-xyz"))).isNull();
    }
}
