package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FixedPromptTest {
    @Test void literalTextAsMessageOrText() {
        Prompt chat = FixedPrompt.load("Say hi", Fixtures.file(null, null, true));
        assertThat(Fixtures.userContent(chat)).isEqualTo("Say hi");
        assertThat(chat.actualTokens()).isEqualTo(-1);
        Prompt text = FixedPrompt.load("Say hi", Fixtures.file(null, Tokenizers.load("cl100k_base"), false));
        assertThat(text.text()).isEqualTo("Say hi");
        assertThat(text.actualTokens()).isEqualTo(2);
    }

    @Test void atFileReadsTheFileVerbatim() {
        Prompt p = FixedPrompt.load("@" + Fixtures.path("fixed_prompt.txt"), Fixtures.file(null, null, true));
        assertThat(Fixtures.userContent(p)).isEqualTo("You are a fixed prompt.\nSecond line.\n");
    }

    @Test void atMissingFileNamesThePath() {
        assertThatThrownBy(() -> FixedPrompt.load("@/no/such/prompt.txt", Fixtures.file(null, null, true)))
                .isInstanceOf(BadInputException.class)
                .hasMessage("/no/such/prompt.txt: no such file");
    }

    @Test void emptyPromptsAreRefused() {
        assertThatThrownBy(() -> FixedPrompt.load("", Fixtures.file(null, null, true)))
                .isInstanceOf(BadInputException.class).hasMessage("--prompt is empty");
        assertThatThrownBy(() -> FixedPrompt.load("@", Fixtures.file(null, null, true)))
                .isInstanceOf(BadInputException.class).hasMessageContaining("file name after '@' is missing");
        String empty = Fixtures.path("empty.txt");
        assertThatThrownBy(() -> FixedPrompt.load("@" + empty, Fixtures.file(null, null, true)))
                .isInstanceOf(BadInputException.class).hasMessage(empty + ": empty file");
        String blank = Fixtures.path("blank.txt");
        assertThatThrownBy(() -> FixedPrompt.load("@" + blank, Fixtures.file(null, null, true)))
                .isInstanceOf(BadInputException.class).hasMessageContaining(blank);
    }
}
