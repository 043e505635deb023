package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConversationDatasetsTest {
    private static final String SHAREGPT_SAMPLE = "src/test/resources/shared-data/sharegpt/sharegpt_multi_turn_sample.jsonl";
    private static final String CUSTOM_SAMPLE = "src/test/resources/shared-data/custom_multi_turn/custom_multi_turn_sample.jsonl";

    @TempDir
    Path dir;

    private static MultiTurnOptions options(String path, Integer maxTurns) {
        return new MultiTurnOptions(new DatasetOptions(path, 0, 0, 131072, 0, null, true, 0), 1, maxTurns, null);
    }

    private List<Conversation> custom(String content, Integer maxTurns) throws IOException {
        Path file = dir.resolve("c.jsonl");
        Files.writeString(file, content);
        return new CustomMultiTurnDataset().load(options(file.toString(), maxTurns), 100);
    }

    private static List<String> roles(Turn turn) {
        return java.util.stream.StreamSupport.stream(turn.messages().spliterator(), false)
                .map(m -> m.get("role").asText() + ":" + m.get("content").asText()).toList();
    }

    /** --dataset-offset is where the conversations start (it was ignored: every sweep point and shard sent the same). */
    @Test
    void customStartsAtTheDatasetOffsetAndWrapsAround() throws IOException {
        Path file = dir.resolve("c.jsonl");
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 5; i++) text.append("[{\"role\":\"user\",\"content\":\"u").append(i).append("\"}]\n");
        Files.writeString(file, text);
        java.util.function.BiFunction<Long, Integer, List<String>> firstUser = (offset, count) -> new CustomMultiTurnDataset()
                .load(new MultiTurnOptions(new DatasetOptions(file.toString(), offset, 0, 131072, 0, null, true, 0), 1,
                        null, null), count).stream().map(c -> c.turns().getFirst().firstUserText()).toList();
        assertThat(firstUser.apply(0L, 2)).containsExactly("u0", "u1");
        assertThat(firstUser.apply(2L, 2)).containsExactly("u2", "u3");
        assertThat(firstUser.apply(4L, 3)).containsExactly("u4", "u0", "u1"); // past the last: from the start again
        assertThat(firstUser.apply(7L, 2)).containsExactly("u2", "u3");       // 7 mod 5
        assertThat(firstUser.apply(1L, 10)).containsExactly("u1", "u2", "u3", "u4", "u0");
    }

    @Test
    void customSplitsAtAssistantMessagesAndDropsThem() throws IOException {
        List<Conversation> c = custom("""
                [{"role":"system","content":"S"},{"role":"user","content":"u1"},{"role":"assistant","content":"a1"},{"role":"user","content":"u2"},{"role":"assistant","content":"a2"},{"role":"tool","content":"t"},{"role":"user","content":"u3"}]
                """, null);
        assertThat(c).hasSize(1);
        assertThat(c.getFirst().turns()).hasSize(3);
        assertThat(roles(c.getFirst().turns().get(0))).containsExactly("system:S", "user:u1");
        assertThat(roles(c.getFirst().turns().get(1))).containsExactly("user:u2");
        assertThat(roles(c.getFirst().turns().get(2))).containsExactly("tool:t", "user:u3");
        assertThat(custom("""
                [{"role":"user","content":"u1"},{"role":"assistant","content":"a1"},{"role":"user","content":"u2"}]
                """, 1).getFirst().turns()).hasSize(1); // --max-turns cuts
    }

    @Test
    void customValidationErrorsNameTheLineAndTheRule() throws IOException {
        String good = "[{\"role\":\"user\",\"content\":\"hi\"}]\n";
        Path file = dir.resolve("c.jsonl");
        String p = file.toString();
        record Case(String line, String message) {}
        List<Case> cases = List.of(
                new Case("{\"role\":\"user\",\"content\":\"hi\"}", p + ":2: must be a JSON array of messages, got an object"),
                new Case("[{\"role\":\"user\"", p + ":2: not valid JSON: "),
                new Case("[]", p + ":2: empty messages array"),
                new Case("[\"hi\"]", p + ":2: message [0] must be an object with 'role' and 'content', got a string"),
                new Case("[{\"content\":\"hi\"}]", p + ":2: field '[0].role': missing"),
                new Case("[{\"role\":\"user\"}]", p + ":2: field '[0].content': missing"),
                new Case("[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"bot\",\"content\":\"b\"}]",
                        p + ":2: field '[1].role': 'bot' is not one of user, assistant, system, tool"),
                new Case("[{\"role\":\"user\",\"content\":5}]",
                        p + ":2: field '[0].content': must be a string or an array of content parts, got a number"),
                new Case("[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"assistant\",\"content\":\"a\"}]",
                        p + ":2: has no user message (at least one is required)"));
        for (Case c : cases) {
            Files.writeString(file, good + c.line() + "\n" + good);
            assertThatThrownBy(() -> new CustomMultiTurnDataset().load(options(p, null), 100))
                    .as(c.line()).isInstanceOf(BadInputException.class).hasMessageStartingWith(c.message());
        }
        assertThatThrownBy(() -> new CustomMultiTurnDataset().load(options(null, null), 10))
                .isInstanceOf(BadInputException.class).hasMessageContaining("needs --dataset-path");
    }

    @Test
    void customSampleFileLoadsWithToolMessagesPassedThrough() {
        List<Conversation> c = new CustomMultiTurnDataset().load(options(CUSTOM_SAMPLE, null), 100);
        assertThat(c).hasSize(20);
        assertThat(c.getFirst().turns().get(2).messages().get(0).get("role").asText()).isEqualTo("tool");
        assertThat(c).allSatisfy(conv -> assertThat(conv.turns()).allSatisfy(t -> assertThat(roles(t))
                .noneMatch(m -> m.startsWith("assistant:"))));
    }

    @Test
    void shareGptTurnsAreTheHumanMessagesOnly() {
        List<Conversation> c = ShareGptMultiTurnDataset.en().load(options(SHAREGPT_SAMPLE, 2), 100);
        assertThat(c).hasSize(20);
        assertThat(c).allSatisfy(conv -> {
            assertThat(conv.turns()).hasSizeBetween(1, 2);
            assertThat(conv.turns()).allSatisfy(t -> assertThat(roles(t)).singleElement().asString().startsWith("user:"));
        });
        assertThat(ShareGptMultiTurnDataset.zh().load(options(SHAREGPT_SAMPLE, null), 3)).hasSize(3);
    }

    @Test
    void shareGptWithoutAFileSaysWhereToGetItAndBadLinesAreNamed() throws IOException {
        assertThatThrownBy(() -> ShareGptMultiTurnDataset.zh().load(options(null, null), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("common_zh_70k.jsonl of the ModelScope dataset swift/sharegpt");
        Path file = dir.resolve("s.jsonl");
        Files.writeString(file, "{\"conversation\":[{\"human\":\"hi\",\"assistant\":\"yo\"}]}\n{\"conversation\":{}}\n");
        assertThatThrownBy(() -> ShareGptMultiTurnDataset.en().load(options(file.toString(), null), 10))
                .isInstanceOf(BadInputException.class)
                .hasMessage(file + ":2: field 'conversation': must be an array, got an object");
    }

    @Test
    void randomMultiTurnDrawsTurnsAndLengthsWithinTheBoundsReproducibly() {
        Tokenizer tok = Tokenizers.defaultTokenizer();
        MultiTurnOptions o = new MultiTurnOptions(new DatasetOptions(null, 0, 20, 40, 0, tok, true, 7), 2, 4, null);
        List<Conversation> a = new RandomMultiTurnDataset().load(o, 30);
        List<Conversation> b = new RandomMultiTurnDataset().load(o, 30);
        assertThat(a).hasSize(30);
        java.util.Set<Integer> sizes = new java.util.TreeSet<>();
        for (int i = 0; i < a.size(); i++) {
            Conversation c = a.get(i);
            sizes.add(c.size());
            assertThat(c.size()).isBetween(2, 4);
            assertThat(c).isEqualTo(b.get(i));
            for (Turn t : c.turns()) assertThat(tok.count(t.firstUserText())).isBetween(20, 40);
        }
        assertThat(sizes).containsExactly(2, 3, 4); // 30 draws cover the whole range
        MultiTurnOptions noMax = new MultiTurnOptions(o.base(), 2, null, null);
        assertThatThrownBy(() -> new RandomMultiTurnDataset().load(noMax, 5))
                .isInstanceOf(BadInputException.class).hasMessageContaining("needs --max-turns");
    }
}
