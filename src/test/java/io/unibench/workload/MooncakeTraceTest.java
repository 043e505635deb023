package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MooncakeTraceTest {
    private static final Tokenizer CL100K = Tokenizers.load("cl100k_base");

    @TempDir
    Path dir;

    private String file(String... lines) throws IOException {
        Path p = dir.resolve("t.jsonl");
        Files.write(p, List.of(lines));
        return p.toString();
    }

    @Test
    void equalHashIdsAreEqualTokenBlocksAndLengthsAreExact() {
        HashBlockText blocks = new HashBlockText(CL100K, 0);
        int[] a = CL100K.encode(blocks.text(new long[] {7, 8, 9}, 1300));
        int[] b = CL100K.encode(blocks.text(new long[] {7, 8, 4}, 1100));
        int[] c = CL100K.encode(blocks.text(new long[] {5, 8}, 600));
        assertThat(a).hasSize(1300);
        assertThat(b).hasSize(1100);
        assertThat(c).hasSize(600);
        assertThat(Arrays.equals(a, 0, 1024, b, 0, 1024)).as("blocks 7, 8 shared").isTrue();
        assertThat(a[1024]).as("block 9 vs block 4").isNotEqualTo(b[1024]);
        // block 8 after block 5 is the same tokens as block 8 after block 7: a block is its id, not its position
        assertThat(Arrays.equals(a, 512, 600, c, 512, 600)).isTrue();
        assertThat(a[0]).isNotEqualTo(c[0]);
        // a partial last block is a prefix of the full one
        int[] partial = CL100K.encode(blocks.text(new long[] {7}, 100));
        assertThat(Arrays.equals(partial, 0, 100, a, 0, 100)).isTrue();
        // another seed, other text
        assertThat(new HashBlockText(CL100K, 1).text(new long[] {7}, 20)).isNotEqualTo(blocks.text(new long[] {7}, 20));
    }

    @Test
    void readsTheFourFieldsAndTimesDividedBySpeedup() throws IOException {
        MooncakeTrace t = MooncakeTrace.read(file(
                "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 2]}",
                "",
                "{\"timestamp\": 250.5, \"input_length\": 512, \"output_length\": 9, \"hash_ids\": [1]}",
                "{\"timestamp\": 1000, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [3]}"));
        assertThat(t.requests()).hasSize(3);
        assertThat(t.requests().get(1).outputLength()).isEqualTo(9);
        assertThat(t.offsetsNanos(0, 2)).containsExactly(0, 125_250_000, 500_000_000);
        assertThat(t.offsetsNanos(1, 1)).containsExactly(0, 749_500_000);
    }

    @Test
    void aBadLineNamesTheFileTheLineAndTheField() throws IOException {
        String ok = "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [1]}";
        String[][] cases = {
                {"{\"input_length\": 10, \"output_length\": 5, \"hash_ids\": [1]}", ":2: field 'timestamp': missing"},
                {"{\"timestamp\": 1, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [1]}",
                        ":2: field 'timestamp': 1.0 is before"},
                {"{\"timestamp\": 9, \"input_length\": 0, \"output_length\": 5, \"hash_ids\": []}",
                        ":2: field 'input_length'"},
                {"{\"timestamp\": 9, \"input_length\": 1000, \"output_length\": 5, \"hash_ids\": [1]}",
                        ":2: field 'hash_ids': 1 ids for input_length 1000; one per 512-token block is 2"},
                {"{\"timestamp\": 9, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [\"a\"]}",
                        ":2: field 'hash_ids': element 0"},
                {"[1]", ":2: expected a JSON object"},
                {"{\"timestamp\": 9, \"input_length\": 10, \"output_length\": 2.5, \"hash_ids\": [1]}",
                        ":2: field 'output_length'"}};
        for (String[] c : cases) {
            String path = file(ok, c[0]);
            assertThatThrownBy(() -> MooncakeTrace.read(path)).as(c[0]).isInstanceOf(BadInputException.class)
                    .hasMessageStartingWith(path).hasMessageContaining(c[1]);
        }
    }

    @Test
    void theDatasetSendsMaxTokensAndIgnoreEosFromTheTraceFromTheOffset() throws IOException {
        String path = file(
                "{\"timestamp\": 0, \"input_length\": 30, \"output_length\": 5, \"hash_ids\": [1]}",
                "{\"timestamp\": 10, \"input_length\": 40, \"output_length\": 7, \"hash_ids\": [2]}");
        List<Prompt> prompts = new MooncakeTraceDataset().load(new DatasetOptions(path, 1, 0, 0, 0, CL100K, true, 0), 5);
        assertThat(prompts).hasSize(1);
        Prompt p = prompts.getFirst();
        assertThat(p.body().get("max_tokens").asInt()).isEqualTo(7);
        assertThat(p.body().get("ignore_eos").asBoolean()).isTrue();
        assertThat(CL100K.count(p.body().at("/messages/0/content").asText())).isEqualTo(40);
        assertThat(p.targetTokens()).isEqualTo(40);
        List<Prompt> text = new MooncakeTraceDataset().load(new DatasetOptions(path, 0, 0, 0, 0, CL100K, false, 0), 5);
        assertThat(CL100K.count(text.getFirst().body().get("prompt").asText())).isEqualTo(30);
        assertThatThrownBy(() -> new MooncakeTraceDataset().load(new DatasetOptions(path, 2, 0, 0, 0, CL100K, true, 0), 1))
                .isInstanceOf(BadInputException.class).hasMessageContaining("--dataset-offset 2");
    }
}
