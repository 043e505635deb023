package io.unibench.sim;

import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class OutputGeneratorTest {
    private static final Tokenizer TOKENIZER = Tokenizers.load("cl100k_base");
    private static final int[] PROMPT = {1, 2, 3, 4, 5};

    private static SimRequest request(Integer maxTokens, int minTokens, boolean ignoreEos, Long seed) {
        return new SimRequest(true, "m", List.of(SimRequest.PromptInput.ofTokens(PROMPT)), true, false,
                maxTokens, minTokens, ignoreEos, seed, List.of());
    }

    private static String text(OutputGenerator gen, OutputGenerator.ChoiceOutput choice) {
        StringBuilder sb = new StringBuilder();
        while (!choice.finished()) sb.append(new String(gen.word(choice.nextWord()), StandardCharsets.UTF_8));
        return sb.toString();
    }

    @Test
    void everyWordIsOneTokenAndTheTextRetokenizesToItsLength() {
        OutputGenerator gen = new OutputGenerator(TOKENIZER, 0, 64);
        assertThat(gen.vocabularySize()).isGreaterThan(100);
        for (int i = 0; i < gen.vocabularySize(); i++) {
            String w = new String(gen.word(i), StandardCharsets.UTF_8);
            assertThat(w).matches(" [a-z]+");
            assertThat(TOKENIZER.count(w)).isEqualTo(1);
        }
        OutputGenerator.ChoiceOutput choice = gen.plan(request(300, 0, true, null), PROMPT, 0);
        assertThat(TOKENIZER.count(text(gen, choice))).isEqualTo(300);
    }

    @Test
    void sameRequestSameOutputDifferentSeedOtherOutput() {
        OutputGenerator gen = new OutputGenerator(TOKENIZER, 7, 64);
        OutputGenerator.ChoiceOutput a = gen.plan(request(1000, 0, false, 42L), PROMPT, 0);
        OutputGenerator.ChoiceOutput b = gen.plan(request(1000, 0, false, 42L), PROMPT, 0);
        assertThat(a.length).isEqualTo(b.length);
        assertThat(text(gen, a)).isEqualTo(text(gen, b));
        // Over 20 request seeds the lengths cannot all coincide (each is a fresh geometric draw).
        long distinct = java.util.stream.LongStream.range(0, 20)
                .mapToInt(s -> gen.plan(request(1000, 0, false, s), PROMPT, 0).length).distinct().count();
        assertThat(distinct).isGreaterThan(1);
    }

    @Test
    void ignoreEosGivesExactlyMaxTokens() {
        OutputGenerator gen = new OutputGenerator(TOKENIZER, 0, 64);
        OutputGenerator.ChoiceOutput c = gen.plan(request(37, 0, true, null), PROMPT, 0);
        assertThat(c.length).isEqualTo(37);
        assertThat(c.finishReason).isEqualTo("length");
        assertThat(gen.plan(request(null, 0, true, null), PROMPT, 0).length).as("no max: 16 x mean").isEqualTo(1024);
    }

    @Test
    void lengthIsClampedBetweenMinAndMax() {
        OutputGenerator gen = new OutputGenerator(TOKENIZER, 0, 64);
        for (long s = 0; s < 50; s++) {
            OutputGenerator.ChoiceOutput c = gen.plan(request(40, 30, false, s), PROMPT, 0);
            assertThat(c.length).isBetween(30, 40);
            assertThat(c.finishReason).isEqualTo(c.length == 40 ? "length" : "stop");
        }
        assertThat(gen.plan(request(1, 0, false, null), PROMPT, 0).finishReason).isEqualTo("length");
    }

    @Test
    void naturalLengthsHaveTheConfiguredMean() {
        OutputGenerator gen = new OutputGenerator(TOKENIZER, 0, 64);
        int n = 4000;
        long sum = 0;
        boolean sawStop = false;
        for (long s = 0; s < n; s++) {
            OutputGenerator.ChoiceOutput c = gen.plan(request(100_000, 0, false, s), PROMPT, 0);
            sum += c.length;
            sawStop |= c.finishReason.equals("stop");
        }
        // Geometric with mean 64 has sd ~63.5, so the mean of 4000 draws has sd ~1.0; +-6 is 6 sigma (and the
        // draws are seeded, so the test is deterministic anyway).
        assertThat(sum / (double) n).isBetween(58.0, 70.0);
        assertThat(sawStop).isTrue();
    }
}
