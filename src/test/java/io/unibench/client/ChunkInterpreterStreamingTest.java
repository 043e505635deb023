package io.unibench.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.client.ChunkInterpreter.Outcome;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The byte-level streaming reader of chunks: only the fields we use, from a slice of a reused buffer. */
class ChunkInterpreterStreamingTest {
    private final ChunkInterpreter chunks = new ChunkInterpreter(new ObjectMapper());

    private Outcome feedInSlice(String json, long nanos) {
        byte[] data = json.getBytes(StandardCharsets.UTF_8);
        byte[] buf = new byte[data.length + 20];
        java.util.Arrays.fill(buf, (byte) '}'); // garbage around the slice must not be read
        System.arraycopy(data, 0, buf, 7, data.length);
        return chunks.onEvent(buf, 7, data.length, nanos);
    }

    @Test
    void readsOnlyTheFirstChoiceAndSkipsUnknownNestedFields() {
        assertThat(feedInSlice("{\"id\":\"x\",\"extra\":{\"a\":[1,{\"content\":\"no\"}]},\"choices\":[{\"index\":0,"
                + "\"logprobs\":{\"content\":[{\"token\":\"no\"}]},\"delta\":{\"content\":\"é€\",\"tool_calls\":[{\"x\":1}]},"
                + "\"finish_reason\":null},{\"index\":1,\"delta\":{\"content\":\"second\"}}],\"usage\":null}", 5))
                .isEqualTo(Outcome.CONTINUE);
        assertThat(feedInSlice("{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,"
                + "\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":2}}}", 6)).isEqualTo(Outcome.CONTINUE);
        assertThat(chunks.onEvent("[DONE]", 7)).isEqualTo(Outcome.DONE);
        assertThat(chunks.content()).isEqualTo("é€");
        assertThat(chunks.tokenChunkNanos()).containsExactly(5);
        assertThat(chunks.finishReason()).isEqualTo("stop");
        assertThat(chunks.usage()).isEqualTo(new Usage(3, 1, 2));
    }

    @Test
    void runOfTokenChunksKeepsEveryTokenInOrderWhateverItsPath() {
        String head = "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{";
        String tail = "},\"finish_reason\":null}],\"usage\":null}";
        String[] deltas = {"\"role\":\"assistant\",\"content\":\"\"", "\"content\":\"He\"", "\"content\":\"llo\"",
                "\"content\":\"\"", "\"content\":\" wörld\"", "\"content\":\" \\\"q\\\"\"", "\"content\":\"!\"",
                "\"reasoning_content\":\"hm\"", "\"reasoning_content\":\"m\"", "\"content\":\" end\""};
        long nanos = 10;
        for (String d : deltas) {
            assertThat(feedInSlice(head + d + tail, nanos++)).isEqualTo(Outcome.CONTINUE);
        }
        assertThat(feedInSlice("{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}", nanos)).isEqualTo(Outcome.CONTINUE);
        assertThat(chunks.onEvent("[DONE]", nanos + 1)).isEqualTo(Outcome.DONE);
        assertThat(chunks.content()).isEqualTo("Hello wörld \"q\"! end");
        assertThat(chunks.reasoning()).isEqualTo("hmm");
        assertThat(chunks.tokenChunkNanos()).containsExactly(11, 12, 14, 15, 16, 17, 18, 19);
        assertThat(chunks.firstChunkNanos()).isEqualTo(10);
        assertThat(chunks.firstTokenNanos()).isEqualTo(11);
        assertThat(chunks.finishReason()).isEqualTo("stop");
    }

    @Test
    void errorAfterChoicesFailsWithoutCountingTheChoice() {
        assertThat(feedInSlice("{\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"error\":{\"message\":\"late\"}}", 1))
                .isEqualTo(Outcome.FAILED);
        assertThat(chunks.failure()).isEqualTo(ErrorClass.BUSINESS_ERROR);
        assertThat(chunks.failureMessage()).isEqualTo("late");
        assertThat(chunks.content()).isEmpty();
    }

    @Test
    void nullErrorAndNonStringFieldsAreIgnored() {
        assertThat(feedInSlice("{\"error\":null,\"choices\":[{\"delta\":{\"content\":null,\"reasoning\":\"r\"},"
                + "\"text\":5,\"finish_reason\":7}]}", 1)).isEqualTo(Outcome.CONTINUE);
        assertThat(chunks.reasoning()).isEqualTo("r");
        assertThat(chunks.finishReason()).isNull();
        assertThat(chunks.firstTokenNanos()).isEqualTo(1);
    }

    @Test
    void nonObjectPayloadsAreProtocolErrors() {
        assertThat(feedInSlice("[1,2]", 1)).isEqualTo(Outcome.FAILED);
        assertThat(chunks.failure()).isEqualTo(ErrorClass.PROTOCOL_ERROR);
        assertThat(chunks.failureMessage()).startsWith("SSE data is not a JSON object");
    }

    @Test
    void blankPayloadIsAKeepAlive() {
        assertThat(feedInSlice(" \t ", 1)).isEqualTo(Outcome.CONTINUE);
        assertThat(chunks.firstChunkNanos()).isEqualTo(ClientResult.ABSENT);
    }
}
