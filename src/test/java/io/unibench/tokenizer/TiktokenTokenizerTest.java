package io.unibench.tokenizer;

import io.unibench.BadInputException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TiktokenTokenizerTest {
    private static Tokenizer cl100k;

    @BeforeAll static void load() {
        cl100k = Tokenizers.load("cl100k_base");
    }

    @Test void encodeDecodeRoundTrip() {
        String text = "Hello, world! Ünïcødé 你好 😀\n\tend";
        int[] ids = cl100k.encode(text);
        assertThat(cl100k.decode(ids)).isEqualTo(text);
        assertThat(cl100k.count(text)).isEqualTo(ids.length);
        assertThat(cl100k.encode("hello world")).containsExactly(15339, 1917); // known cl100k ids
    }

    @Test void specialTokenTextIsOrdinaryText() {
        // "<|endoftext|>" typed in a prompt is text, not the special token 100257.
        int[] ids = cl100k.encode("<|endoftext|>");
        assertThat(ids).hasSizeGreaterThan(1).doesNotContain(100257);
    }

    @Test void vocabSizeIsTheOrdinaryIdBoundary() {
        assertThat(cl100k.vocabSize()).isEqualTo(100_256);
        assertThat(cl100k.decode(new int[] {cl100k.vocabSize() - 1})).isNotEmpty();
        assertThatThrownBy(() -> cl100k.decode(new int[] {cl100k.vocabSize()}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("100256");
        assertThatThrownBy(() -> cl100k.decode(new int[] {-1})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cl100k.decode(new int[] {100_257})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test void o200kByName() {
        Tokenizer o200k = Tokenizers.load("o200k_base");
        assertThat(o200k.name()).isEqualTo("o200k_base");
        assertThat(o200k.vocabSize()).isEqualTo(199_998);
        assertThat(o200k.decode(new int[] {199_997})).isNotEmpty();
        assertThatThrownBy(() -> o200k.decode(new int[] {199_998})).isInstanceOf(IllegalArgumentException.class);
        String text = "The quick brown fox";
        assertThat(o200k.decode(o200k.encode(text))).isEqualTo(text);
        assertThat(o200k.isEstimate()).isFalse();
    }

    @Test void r50kAndP50kBoundaries() {
        Tokenizer r50k = Tokenizers.load("r50k_base");
        assertThat(r50k.vocabSize()).isEqualTo(50_256);
        assertThatThrownBy(() -> r50k.decode(new int[] {50_256})).isInstanceOf(IllegalArgumentException.class);
        // p50k's ordinary ids run to 50280 (24 whitespace tokens after <|endoftext|> = 50256, which is special).
        Tokenizer p50k = Tokenizers.load("p50k_base");
        assertThat(p50k.vocabSize()).isEqualTo(50_281);
        assertThat(p50k.decode(new int[] {50_280})).isNotEmpty().isBlank();
        assertThatThrownBy(() -> p50k.decode(new int[] {50_256}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("special");
        assertThatThrownBy(() -> p50k.decode(new int[] {50_281})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test void unknownNameIsBadInput() {
        assertThatThrownBy(() -> Tokenizers.load("gpt-17"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("--tokenizer-path 'gpt-17'")
                .hasMessageContaining("cl100k_base");
        assertThat(TiktokenTokenizer.byName("gpt-17")).isEmpty();
    }

    @Test void defaultIsCl100k() {
        assertThat(Tokenizers.defaultTokenizer().name()).isEqualTo("cl100k_base");
    }
}
