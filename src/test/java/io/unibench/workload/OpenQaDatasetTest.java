package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OpenQaDatasetTest {
    @Test void strippedQuestionsAsUserMessages() {
        List<Prompt> prompts = new OpenQaDataset().load(Fixtures.file(Fixtures.path("openqa.jsonl"), null, true), 10);
        assertThat(prompts).extracting(Fixtures::userContent).containsExactly(
                "What is a perf benchmark?", "Why is the sky blue?", "How many tokens is this question?");
    }

    @Test void textModeAndTokenFilter() {
        // Tokens (cl100k): 6, 6, 7.
        List<Prompt> prompts = new OpenQaDataset().load(
                new DatasetOptions(Fixtures.path("openqa.jsonl"), 0, 7, 100, 0, Tokenizers.load("cl100k_base"), false, 1), 10);
        assertThat(prompts).extracting(Prompt::text).containsExactly("How many tokens is this question?");
        assertThat(prompts.get(0).actualTokens()).isEqualTo(7);
    }

    @Test void withoutAPathExplainsTheOfflineFile() {
        assertThatThrownBy(() -> new OpenQaDataset().load(Fixtures.file(null, null, true), 1))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("--dataset-path")
                .hasMessageContaining("JSONL")
                .hasMessageContaining("AI-ModelScope/HC3-Chinese")
                .hasMessageContaining("offline");
    }

    @Test void aLineThatIsNotJsonNamesItsLine() {
        String path = Fixtures.path("openqa_bad_json.jsonl");
        assertThatThrownBy(() -> new OpenQaDataset().load(Fixtures.file(path, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith(path + ":3: not valid JSON");
    }

    /** The whole file is checked (issue 15): a bad line past the prompts a run needs is still an error. */
    @Test void aBadLinePastTheCountIsStillAnError() {
        String path = Fixtures.path("openqa_bad_json.jsonl");
        assertThatThrownBy(() -> new OpenQaDataset().load(Fixtures.file(path, null, true), 2))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith(path + ":3: not valid JSON");
    }

    @Test void aMissingQuestionNamesLineAndField() {
        String path = Fixtures.path("openqa_missing_question.jsonl");
        assertThatThrownBy(() -> new OpenQaDataset().load(Fixtures.file(path, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessage(path + ":2: field 'question': missing");
    }

    @Test void aQuestionThatIsNotAStringNamesLineAndField() {
        String path = Fixtures.path("openqa_number_question.jsonl");
        assertThatThrownBy(() -> new OpenQaDataset().load(Fixtures.file(path, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessage(path + ":1: field 'question': must be a string, got a number");
    }

    @Test void aLineThatIsNotAnObjectIsAnError() {
        String path = Fixtures.path("custom.txt"); // plain text lines, not JSON
        assertThatThrownBy(() -> new OpenQaDataset().load(Fixtures.file(path, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith(path + ":1: not valid JSON");
    }
}
