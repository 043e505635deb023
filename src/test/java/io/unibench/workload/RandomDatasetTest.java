package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RandomDatasetTest {
    private static Tokenizer cl100k;

    @BeforeAll static void load() {
        cl100k = Tokenizers.load("cl100k_base");
    }

    private static List<String> texts(DatasetOptions options, int count) {
        return new RandomDataset().load(options, count).stream().map(Fixtures::textOf).toList();
    }

    @Test void needsATokenizer() {
        assertThatThrownBy(() -> new RandomDataset().load(Fixtures.random(null, 1, 10, 0, 0, 1, true), 3))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("--tokenizer-path")
                .hasMessageContaining("cl100k_base");
    }

    @Test void everyPromptHasExactlyItsTargetLengthWithinTheBounds() {
        List<Prompt> prompts = new RandomDataset().load(Fixtures.random(cl100k, 1, 1500, 0, 0, 7, true), 60);
        assertThat(prompts).hasSize(60);
        for (Prompt p : prompts) {
            assertThat(p.targetTokens()).isBetween(1, 1500);
            assertThat(p.actualTokens()).isEqualTo(p.targetTokens());
            assertThat(cl100k.count(Fixtures.userContent(p))).isEqualTo(p.targetTokens());
        }
        // Uniform over [1, 1500]: 60 draws are not all the same length.
        assertThat(prompts.stream().map(Prompt::targetTokens).distinct().count()).isGreaterThan(30);
    }

    @Test void boundsAreInclusiveAndZeroBecomesOne() {
        for (Prompt p : new RandomDataset().load(Fixtures.random(cl100k, 0, 0, 0, 0, 3, false), 20)) {
            assertThat(p.targetTokens()).isEqualTo(1);
            assertThat(cl100k.count(p.text())).isEqualTo(1);
        }
        List<Integer> lengths = new RandomDataset().load(Fixtures.random(cl100k, 5, 6, 0, 0, 3, false), 60)
                .stream().map(Prompt::targetTokens).distinct().sorted().toList();
        assertThat(lengths).containsExactly(5, 6);
    }

    @Test void sameSeedSamePromptsOtherSeedOrOffsetOtherPrompts() {
        List<String> a = texts(Fixtures.random(cl100k, 10, 200, 0, 0, 42, true), 8);
        assertThat(texts(Fixtures.random(cl100k, 10, 200, 0, 0, 42, true), 8)).isEqualTo(a);
        List<String> otherSeed = texts(Fixtures.random(cl100k, 10, 200, 0, 0, 43, true), 8);
        List<String> otherOffset = texts(Fixtures.random(cl100k, 10, 200, 0, 8, 42, true), 8);
        for (int i = 0; i < 8; i++) {
            assertThat(otherSeed.get(i)).isNotEqualTo(a.get(i));
            assertThat(otherOffset.get(i)).isNotEqualTo(a.get(i));
        }
        // An offset is not a shift: offset 1's prompt i is none of offset 0's prompts (no cross-run cache hits).
        assertThat(texts(Fixtures.random(cl100k, 10, 200, 0, 1, 42, true), 8)).doesNotContainAnyElementsOf(a);
    }

    @Test void prefixIsSharedByEveryPromptAndFixedBySeedAlone() {
        int prefixLength = 64;
        List<Prompt> prompts = new RandomDataset().load(Fixtures.random(cl100k, 20, 100, prefixLength, 0, 9, true), 12);
        String prefix = new PromptSynthesizer(cl100k).prefix(prefixLength, prefixSeed(9));
        assertThat(cl100k.count(prefix)).isEqualTo(prefixLength);
        for (Prompt p : prompts) {
            String text = Fixtures.userContent(p);
            assertThat(text).startsWith(prefix);
            assertThat(p.targetTokens()).isBetween(prefixLength + 20, prefixLength + 100);
            assertThat(cl100k.count(text)).isEqualTo(p.targetTokens());
        }
        // Another offset (the next sweep run) keeps the prefix: it is the part meant to be cached.
        String otherRun = Fixtures.userContent(
                new RandomDataset().load(Fixtures.random(cl100k, 20, 100, prefixLength, 12, 9, true), 1).get(0));
        assertThat(otherRun).startsWith(prefix);
        assertThat(Fixtures.userContent(
                new RandomDataset().load(Fixtures.random(cl100k, 20, 100, prefixLength, 0, 10, true), 1).get(0)))
                .doesNotStartWith(prefix);
    }

    @Test void thePrefixsTokensOpenEveryPromptsTokens() {
        // A server caches token blocks: the prefix is only reusable if its own tokens survive at the start of every
        // prompt (random text after it could merge with its last token; about 3 in 100 did before this was checked).
        int prefixLength = 32;
        List<Prompt> prompts = new RandomDataset().load(Fixtures.random(cl100k, 5, 50, prefixLength, 0, 5, true), 100);
        int[] prefixIds = cl100k.encode(new PromptSynthesizer(cl100k).prefix(prefixLength, prefixSeed(5)));
        assertThat(prefixIds).hasSize(prefixLength);
        for (Prompt p : prompts) {
            int[] ids = cl100k.encode(Fixtures.userContent(p));
            assertThat(Arrays.copyOf(ids, prefixLength)).isEqualTo(prefixIds);
            assertThat(ids).hasSize(p.targetTokens());
        }
    }

    @Test void chatGivesOneUserMessageTextModeGivesText() {
        Prompt chat = new RandomDataset().load(Fixtures.random(cl100k, 10, 10, 0, 0, 1, true), 1).get(0);
        assertThat(chat.messages()).hasSize(1);
        assertThat(chat.text()).isNull();
        Prompt text = new RandomDataset().load(Fixtures.random(cl100k, 10, 10, 0, 0, 1, false), 1).get(0);
        assertThat(text.messages()).isNull();
        assertThat(text.text()).isEqualTo(Fixtures.userContent(chat));
    }

    @Test void badBoundsAreBadInput() {
        assertThatThrownBy(() -> new RandomDataset().load(Fixtures.random(cl100k, 10, 5, 0, 0, 1, true), 1))
                .isInstanceOf(BadInputException.class).hasMessageContaining("--max-prompt-length 5");
        assertThatThrownBy(() -> new RandomDataset().load(Fixtures.random(cl100k, -1, 5, 0, 0, 1, true), 1))
                .isInstanceOf(BadInputException.class).hasMessageContaining("--min-prompt-length");
        assertThatThrownBy(() -> new RandomDataset().load(Fixtures.random(cl100k, 1, 5, -3, 0, 1, true), 1))
                .isInstanceOf(BadInputException.class).hasMessageContaining("--prefix-length");
    }

    @Test void theListHasCountPromptsAndRejectsOtherIndexes() {
        List<Prompt> prompts = new RandomDataset().load(Fixtures.random(cl100k, 1, 5, 0, 0, 1, true), 3);
        assertThat(prompts).hasSize(3);
        assertThatThrownBy(() -> prompts.get(3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(prompts.get(2)).isEqualTo(prompts.get(2)); // pure in the index
    }

    /** Mirrors RandomDataset's prefix seed so the test can rebuild the expected prefix. */
    private static long prefixSeed(long seed) {
        return RandomDataset.prefixSeed(seed);
    }
}
