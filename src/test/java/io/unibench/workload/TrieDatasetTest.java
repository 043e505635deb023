package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TrieDatasetTest {
    static final String SMALL = "src/test/resources/agentic/trie_small.jsonl";
    static final String SAMPLE = "src/test/resources/shared-data/trie/agentic_coding_sample.jsonl";
    private static Tokenizer cl100k;

    @TempDir
    Path dir;

    @BeforeAll static void load() {
        cl100k = Tokenizers.load("cl100k_base");
    }

    private static MultiTurnOptions options(String path, long offset, int prefix, long seed) {
        return new MultiTurnOptions(new DatasetOptions(path, offset, 0, 131072, prefix, cl100k, true, seed), 1, null, null);
    }

    @Test void turnsFollowTheTraceExactly() {
        List<Conversation> convs = Datasets.conversationByName("trie_agentic_coding").load(options(SMALL, 0, 0, 0), 10);
        assertThat(convs).hasSize(3); // fewer traces than asked: the runner cycles
        Conversation c = convs.get(0);
        assertThat(c.source()).endsWith("trie_small.jsonl:1");
        assertThat(c.turns()).extracting(Turn::maxTokens).containsExactly(5, 7, 11);
        assertThat(c.turns()).extracting(Turn::toolCallLatencySeconds).containsExactly(null, 1.5, 0.25);
        assertThat(c.turns()).extracting(Turn::targetTokens).containsExactly(40, 12, 9);
        for (Turn t : c.turns()) {
            assertThat(t.messages()).hasSize(1);
            assertThat(t.messages().get(0).get("role").asText()).isEqualTo("user");
            assertThat(cl100k.count(t.firstUserText())).isEqualTo(t.targetTokens()).isEqualTo(t.actualTokens());
        }
        Conversation noTools = convs.get(1); // num_turns 0: one request with the final length
        assertThat(noTools.turns()).extracting(Turn::maxTokens).containsExactly(6);
        Conversation zero = convs.get(2); // line 4 (a blank line before it); 0-token tool output becomes 1 token
        assertThat(zero.source()).endsWith(":4");
        assertThat(zero.turns().get(1).targetTokens()).isEqualTo(1);
    }

    @Test void theTwentyTraceSampleIsExactUnderCl100k() {
        List<Conversation> convs = Datasets.conversationByName("trie_code_qa").load(options(SAMPLE, 0, 0, 3), 20);
        assertThat(convs).hasSize(20);
        List<TrieTrace> traces = TrieDataset.readAll(SAMPLE);
        Conversation first = convs.get(0);
        TrieTrace t0 = traces.get(0);
        assertThat(first.size()).isEqualTo(t0.numTurns() + 1).isEqualTo(12);
        assertThat(first.turns().get(0).actualTokens()).isEqualTo(6342);
        assertThat(first.turns().get(11).maxTokens()).isEqualTo(288);
        assertThat(first.turns().get(1).toolCallLatencySeconds()).isEqualTo(37.197);
        for (Turn t : first.turns()) assertThat(t.actualTokens()).isEqualTo(t.targetTokens());
    }

    @Test void offsetRotatesAndTextDependsOnTheLineOnly() {
        TrieDataset d = new TrieDataset(TrieDataset.OFFICE_WORK);
        List<Conversation> a = d.load(options(SMALL, 0, 0, 9), 3);
        List<Conversation> b = d.load(options(SMALL, 1, 0, 9), 3);
        assertThat(b.get(0).source()).isEqualTo(a.get(1).source());
        assertThat(b.get(2).source()).isEqualTo(a.get(0).source()); // wraps
        assertThat(b.get(0).turns().get(0).firstUserText()).isEqualTo(a.get(1).turns().get(0).firstUserText());
        List<Conversation> other = d.load(options(SMALL, 0, 0, 10), 3);
        assertThat(other.get(0).turns().get(0).firstUserText()).isNotEqualTo(a.get(0).turns().get(0).firstUserText());
    }

    @Test void prefixOpensTheFirstMessageInsideItsLength() {
        TrieDataset d = new TrieDataset(TrieDataset.AGENTIC_CODING);
        List<Conversation> convs = d.load(options(SMALL, 0, 8, 0), 3);
        String p0 = convs.get(0).turns().get(0).firstUserText();
        String p1 = convs.get(1).turns().get(0).firstUserText();
        String prefix = new PromptSynthesizer(cl100k).prefix(8, RandomDataset.prefixSeed(0));
        assertThat(p0).startsWith(prefix);
        assertThat(p1).startsWith(prefix);
        assertThat(cl100k.count(p0)).isEqualTo(40);
        assertThatThrownBy(() -> d.load(options(SMALL, 0, 30, 0), 3)).isInstanceOf(BadInputException.class)
                .hasMessageEndingWith("trie_small.jsonl:2: field 'input_prompt_length': 30 tokens leave no room after --prefix-length 30");
    }

    private String bad(String line) throws Exception {
        Path f = dir.resolve("bad.jsonl");
        String good = "{\"input_prompt_length\": 5, \"assistant_response_length\": [1], \"num_turns\": 1, "
                + "\"tool_call_latency\": [0.1], \"tool_call_output_length\": [2], \"final_assistant_response_length\": 3}";
        Files.writeString(f, good + "\n" + line + "\n");
        try {
            new TrieDataset(TrieDataset.AGENTIC_CODING).load(options(f.toString(), 0, 0, 0), 5);
        } catch (BadInputException e) {
            return e.getMessage().substring(e.getMessage().indexOf("bad.jsonl"));
        }
        throw new AssertionError("accepted: " + line);
    }

    @Test void malformedLinesNameTheLineAndField() throws Exception {
        assertThat(bad("{\"input_prompt_length\": 5, \"assistant_response_length\": [1, 2], \"num_turns\": 1, "
                + "\"tool_call_latency\": [0.1], \"tool_call_output_length\": [2], \"final_assistant_response_length\": 3}"))
                .isEqualTo("bad.jsonl:2: field 'assistant_response_length': has 2 values but num_turns is 1");
        assertThat(bad("{\"input_prompt_length\": 5, \"assistant_response_length\": [1], \"num_turns\": 1, "
                + "\"tool_call_latency\": [-0.1], \"tool_call_output_length\": [2], \"final_assistant_response_length\": 3}"))
                .isEqualTo("bad.jsonl:2: field 'tool_call_latency[0]': negative or not finite: -0.1");
        assertThat(bad("{\"input_prompt_length\": 5, \"assistant_response_length\": [1], \"num_turns\": 1, "
                + "\"tool_call_latency\": [0.1], \"tool_call_output_length\": [-2], \"final_assistant_response_length\": 3}"))
                .isEqualTo("bad.jsonl:2: field 'tool_call_output_length[0]': negative: -2");
        assertThat(bad("{\"input_prompt_length\": 5, \"assistant_response_length\": [1], \"num_turns\": 1, "
                + "\"tool_call_latency\": [0.1], \"tool_call_output_length\": [2]}"))
                .isEqualTo("bad.jsonl:2: field 'final_assistant_response_length': missing");
        assertThat(bad("{\"input_prompt_length\": \"5\"}"))
                .isEqualTo("bad.jsonl:2: field 'input_prompt_length': expected a whole number, got a string \"5\"");
        assertThat(bad("not json")).isEqualTo("bad.jsonl:2: not valid JSON");
    }

    @Test void needsAPathAndATokenizer() {
        TrieDataset d = new TrieDataset(TrieDataset.AGENTIC_CODING);
        assertThatThrownBy(() -> d.load(options(null, 0, 0, 0), 1)).isInstanceOf(BadInputException.class)
                .hasMessageContaining("needs --dataset-path");
        MultiTurnOptions noTok = new MultiTurnOptions(new DatasetOptions(SMALL, 0, 0, 1, 0, null, true, 0), 1, null, null);
        assertThatThrownBy(() -> d.load(noTok, 1)).isInstanceOf(BadInputException.class)
                .hasMessageContaining("--tokenizer-path");
    }
}
