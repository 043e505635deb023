package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CustomDatasetTest {
    private static final String FILE = Fixtures.path("custom.txt");
    private static Tokenizer cl100k;

    @BeforeAll static void load() {
        cl100k = Tokenizers.load("cl100k_base");
    }

    private static List<String> texts(DatasetOptions options, int count) {
        return new CustomDataset().load(options, count).stream().map(Fixtures::textOf).toList();
    }

    @Test void everyNonBlankLineStrippedIsOneUserMessage() {
        List<Prompt> prompts = new CustomDataset().load(Fixtures.file(FILE, null, true), 100);
        assertThat(prompts).extracting(Fixtures::userContent)
                .containsExactly("hello world", "What is the capital of France?", "padded prompt", "一二三四五", "😀😀😀");
        assertThat(prompts).allSatisfy(p -> assertThat(p.actualTokens()).isEqualTo(-1));
    }

    @Test void textModeGivesTextAndTokenizerGivesCounts() {
        List<Prompt> prompts = new CustomDataset().load(Fixtures.file(FILE, cl100k, false), 100);
        assertThat(prompts.get(0).text()).isEqualTo("hello world");
        assertThat(prompts.get(0).actualTokens()).isEqualTo(2);
        assertThat(prompts.get(1).actualTokens()).isEqualTo(7);
    }

    @Test void stopsAtCountInFileOrder() {
        assertThat(texts(Fixtures.file(FILE, null, true), 2)).containsExactly("hello world", "What is the capital of France?");
    }

    @Test void lengthFilterCountsCharactersAsCodePointsWithoutTokenizer() {
        // 😀😀😀 is 3 characters (6 UTF-16 units); every other line is longer.
        assertThat(texts(Fixtures.filtered(FILE, 3, 3, null), 100)).containsExactly("😀😀😀");
        assertThat(texts(Fixtures.filtered(FILE, 11, 13, null), 100)).containsExactly("hello world", "padded prompt");
    }

    @Test void lengthFilterCountsTokensWithTokenizer() {
        // Tokens (cl100k): hello world 2, France question 7, padded prompt 3, 一二三四五 5, 😀😀😀 6.
        assertThat(texts(Fixtures.filtered(FILE, 6, 7, cl100k), 100))
                .containsExactly("What is the capital of France?", "😀😀😀");
        assertThat(texts(Fixtures.filtered(FILE, 0, 2, cl100k), 100)).containsExactly("hello world");
    }

    @Test void aFilterThatKeepsNothingSaysWhatWasReadAndTheBounds() {
        assertThatThrownBy(() -> new CustomDataset().load(Fixtures.filtered(FILE, 100, 200, null), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(FILE)
                .hasMessageContaining("read 5 non-blank line(s)")
                .hasMessageContaining("[100, 200] characters");
        assertThatThrownBy(() -> new CustomDataset().load(Fixtures.filtered(FILE, 100, 200, cl100k), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("[100, 200] tokens (cl100k_base)");
    }

    @Test void needsAPath() {
        assertThatThrownBy(() -> new CustomDataset().load(Fixtures.file(null, null, true), 1))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("--dataset custom needs --dataset-path");
    }
}
