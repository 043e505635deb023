package io.unibench.tokenizer;

import io.unibench.BadInputException;
import io.unibench.workload.PromptSynthesizer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The real GPT-2 tokenizer.json (a copy of ../shared/data in src/test/resources/shared-data; its file sets truncation to 50 tokens, which must not apply). */
class HfTokenizerTest {
    static final Path GPT2 = Path.of("src/test/resources/shared-data/tokenizers/gpt2/tokenizer.json");
    private static Tokenizer gpt2;

    @BeforeAll static void load() {
        gpt2 = Tokenizers.load(GPT2.toString());
    }

    @Test void knownIdsAndRoundTrip() {
        assertThat(gpt2.encode("Hello world")).containsExactly(15496, 995); // GPT-2's published ids
        String text = "Hello, world! Ünïcødé 你好 😀\n\tend";
        assertThat(gpt2.decode(gpt2.encode(text))).isEqualTo(text);
        assertThat(gpt2.vocabSize()).isEqualTo(50_256); // 50257 minus <|endoftext|>, the only special token
        assertThat(gpt2.isEstimate()).isFalse();
    }

    @Test void fileTruncationIsIgnored() {
        String longText = " word".repeat(300);
        assertThat(gpt2.count(longText)).isEqualTo(300); // " word" is one token; the file says max_length 50
    }

    @Test void noSpecialTokensAddedAndSpecialIdRejected() {
        assertThat(gpt2.encode("a")).hasSize(1);
        assertThatThrownBy(() -> gpt2.decode(new int[] {50_256})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> gpt2.decode(new int[] {60_000})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test void aFolderWithTokenizerJsonLoadsAndKeepsItsChatTemplate(@TempDir Path dir) throws Exception {
        Files.copy(GPT2, dir.resolve("tokenizer.json"));
        Files.writeString(dir.resolve("tokenizer_config.json"), "{\"chat_template\": \"{% for m in messages %}x{% endfor %}\"}");
        HfTokenizer t = (HfTokenizer) Tokenizers.load(dir.toString());
        assertThat(t.encode("Hello world")).containsExactly(15496, 995);
        assertThat(t.chatTemplate()).startsWith("{% for m");
    }

    @Test void badPathsAreBadInput(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> Tokenizers.load(dir.toString())).isInstanceOf(BadInputException.class)
                .hasMessageContaining("no tokenizer.json");
        Path junk = dir.resolve("t.json");
        Files.writeString(junk, "{\"x\": 1}");
        assertThatThrownBy(() -> Tokenizers.load(junk.toString())).isInstanceOf(BadInputException.class)
                .hasMessageContaining("no 'model'");
        assertThatThrownBy(() -> Tokenizers.load("no_such_encoding")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("unknown tokenizer");
    }

    @Test void synthesizedPromptsAreExactUnderGpt2AndCl100k() {
        for (Tokenizer t : List.of(gpt2, Tokenizers.load("cl100k_base"))) {
            PromptSynthesizer synth = new PromptSynthesizer(t);
            SplittableRandom rng = new SplittableRandom(11);
            List<String> misses = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                int n = 1 + rng.nextInt(1500);
                PromptSynthesizer.Synthesized s = synth.synthesize(n, rng);
                assertThat(s.actualTokens()).isEqualTo(t.count(s.text()));
                if (!s.exact()) misses.add(t.name() + ":" + n + "->" + s.actualTokens());
            }
            String prefix = synth.prefix(37, 5);
            PromptSynthesizer.Synthesized withPrefix = synth.synthesize(prefix, 500, rng);
            assertThat(withPrefix.text()).startsWith(prefix);
            assertThat(t.count(withPrefix.text())).isEqualTo(500);
            assertThat(misses).isEmpty();
        }
    }

    @Test void charEstimateCountsCodePointsAndIsAnEstimate() {
        CharEstimateTokenizer est = new CharEstimateTokenizer(3.0);
        assertThat(est.count("abcdefg")).isEqualTo(3); // ceil(7/3)
        assertThat(est.count("你好😀")).isEqualTo(1); // 3 code points
        assertThat(est.count("")).isZero();
        assertThat(est.isEstimate()).isTrue();
    }
}
