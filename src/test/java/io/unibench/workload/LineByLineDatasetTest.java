package io.unibench.workload;

import io.unibench.BadInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LineByLineDatasetTest {
    @TempDir Path dir;

    private String file(String content) throws IOException {
        Path p = dir.resolve("lines.txt");
        Files.writeString(p, content);
        return p.toString();
    }

    @Test void theThreeKindsOfLine() {
        List<Prompt> prompts = new LineByLineDataset().load(Fixtures.file(Fixtures.path("line_by_line.txt"), null, true), 10);
        assertThat(prompts).hasSize(4);
        assertThat(Fixtures.userContent(prompts.get(0))).isEqualTo("Tell me a joke.");

        Prompt messages = prompts.get(1);
        assertThat(messages.messages()).hasSize(2);
        assertThat(messages.messages().get(0).get("role").asText()).isEqualTo("system");
        assertThat(messages.messages().get(1).get("content").asText()).isEqualTo("Hi");

        Prompt body = prompts.get(2);
        assertThat(body.body().get("model").asText()).isEqualTo("m1");
        assertThat(body.body().get("max_tokens").asInt()).isEqualTo(7);

        assertThat(Fixtures.userContent(prompts.get(3))).isEqualTo("[INST] bracketed text stays text [/INST]");
    }

    @Test void textModeAffectsOnlyPlainLines() {
        List<Prompt> prompts = new LineByLineDataset().load(Fixtures.file(Fixtures.path("line_by_line.txt"), null, false), 10);
        assertThat(prompts.get(0).text()).isEqualTo("Tell me a joke.");
        assertThat(prompts.get(1).messages()).hasSize(2);
        assertThat(prompts.get(2).body()).isNotNull();
    }

    @Test void lengthFilterAppliesOnlyToPlainText() {
        // 1 character max: every plain line is dropped, the JSON lines are kept.
        List<Prompt> prompts = new LineByLineDataset().load(Fixtures.filtered(Fixtures.path("line_by_line.txt"), 0, 1, null), 10);
        assertThat(prompts).hasSize(2);
        assertThat(prompts.get(0).messages()).isNotNull();
        assertThat(prompts.get(1).body()).isNotNull();
    }

    @Test void aMessageWithoutContentNamesLineAndField() {
        String path = Fixtures.path("line_by_line_missing_content.txt");
        assertThatThrownBy(() -> new LineByLineDataset().load(Fixtures.file(path, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessage(path + ":2: field 'content': missing in message 2 of 2");
    }

    @Test void aMessageWithoutRoleNamesLineAndField() throws IOException {
        String path = file("[{\"content\":\"hi\"}]\n");
        assertThatThrownBy(() -> new LineByLineDataset().load(Fixtures.file(path, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessage(path + ":1: field 'role': missing in message 1 of 1");
    }

    @Test void arrayElementsMustBeMessageObjects() throws IOException {
        String path = file("ok\n[1, 2]\n");
        assertThatThrownBy(() -> new LineByLineDataset().load(Fixtures.file(path, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessage(path + ":2: message 1 of 2 must be a JSON object, got a number");
        String empty = file("[]\n");
        assertThatThrownBy(() -> new LineByLineDataset().load(Fixtures.file(empty, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessage(empty + ":1: empty message list");
    }

    @Test void contentMayBePartsOrNullWithToolCalls() throws IOException {
        String path = file("[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},"
                + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[]},{\"role\":\"tool\",\"content\":\"42\"}]\n");
        assertThat(new LineByLineDataset().load(Fixtures.file(path, null, true), 10).get(0).messages()).hasSize(3);
        String bad = file("[{\"role\":\"user\",\"content\":null}]\n");
        assertThatThrownBy(() -> new LineByLineDataset().load(Fixtures.file(bad, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessage(bad + ":1: field 'content': must be a string or an array of content parts, got null in message 1 of 1");
    }

    @Test void aBrokenJsonBodyNamesItsLine() {
        String path = Fixtures.path("line_by_line_bad_body.txt");
        assertThatThrownBy(() -> new LineByLineDataset().load(Fixtures.file(path, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith(path + ":3: looks like a JSON request body but is not valid JSON");
    }

    @Test void textAfterAJsonValueIsNotSilentlyDropped() throws IOException {
        String path = file("{\"model\":\"m\"} {\"model\":\"n\"}\n"); // two objects on one line
        assertThatThrownBy(() -> new LineByLineDataset().load(Fixtures.file(path, null, true), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith(path + ":1: looks like a JSON request body");
    }

    @Test void braceTextThatIsNotABodyIsAPrompt() throws IOException {
        String path = file("{name} is a placeholder in this prompt\n");
        assertThat(Fixtures.userContent(new LineByLineDataset().load(Fixtures.file(path, null, true), 1).get(0)))
                .isEqualTo("{name} is a placeholder in this prompt");
    }
}
