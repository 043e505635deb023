package io.unibench.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.Moments;
import io.unibench.client.ChunkInterpreter.Outcome;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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

    /** What a response gave: outcome of every event in order, then the interpreter's results. */
    private static List<Object> readStream(byte[] sse, int cut, boolean claiming, int[] claims) {
        ChunkInterpreter in = new ChunkInterpreter(new ObjectMapper());
        List<Object> outcomes = new ArrayList<>();
        long[] clock = {100};
        SseParser parser = new SseParser((buf, framing, off, len) -> outcomes.add(in.onEvent(buf, framing, off, len, clock[0]++)),
                claiming ? (buf, from, limit) -> {
                    int n = in.claim(buf, from, limit, clock[0]);
                    if (n >= 0) {
                        outcomes.add(Outcome.CONTINUE);
                        clock[0]++;
                        claims[0]++;
                    }
                    return n;
                } : null);
        parser.feed(sse, 0, cut);
        parser.feed(sse, cut, sse.length - cut);
        parser.finish();
        outcomes.addAll(List.of(in.content(), in.reasoning(), Arrays.toString(in.tokenChunkNanos()),
                String.valueOf(in.finishReason()), String.valueOf(in.failure()), String.valueOf(in.failureMessage())));
        return outcomes;
    }

    @Test
    void claimedEventsReadAsTheParserWouldHaveReadThem() {
        String head = "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{";
        String tail = "},\"finish_reason\":null}],\"usage\":null}";
        StringBuilder sse = new StringBuilder("data: " + head + "\"role\":\"assistant\",\"content\":\"\"" + tail + "\n\n");
        for (int i = 0; i < 12; i++) sse.append("data: ").append(head).append("\"content\":\"t").append(i).append(" \"").append(tail).append("\n\n");
        sse.append("data: ").append(head).append("\"content\":\"é\\n\"").append(tail).append("\n\n");
        sse.append("data:").append(head).append("\"content\":\"no space\"").append(tail).append("\n\n");
        sse.append("data: ").append(head).append("\"content\":\"crlf\"").append(tail).append("\r\n\r\n");
        sse.append("data: ").append(head).append("\"content\":\"x\"").append(tail).append(" trailing\n\n");
        sse.append("data: ").append(head).append("\"content\":\"y\"").append(tail).append("\ndata: more\n\n");
        sse.append("data: ").append(head).append("\"reasoning_content\":\"r\"").append(tail).append("\n\n");
        sse.append("data: ").append(head).append("\"reasoning_content\":\"s\"").append(tail).append("\n\n");
        sse.append("data: ").append(head).append("\"content\":\"z\"").append(tail).append("\n\n");
        sse.append("data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
        sse.append("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":20}}\n\n");
        sse.append("data: [DONE]\n\n");
        byte[] all = sse.toString().getBytes(StandardCharsets.UTF_8);
        int[] claims = {0};
        List<Object> expected = readStream(all, all.length, false, claims);
        assertThat(expected.get(expected.size() - 6)).isEqualTo("t0 t1 t2 t3 t4 t5 t6 t7 t8 t9 t10 t11 é\nno spacecrlfxyz");
        for (int cut = 0; cut <= all.length; cut += 5) {
            assertThat(readStream(all, cut, true, claims)).as("split at %d", cut).isEqualTo(expected);
        }
        assertThat(claims[0]).as("events claimed in place").isGreaterThan(10 * (all.length / 5));
    }

    @Test
    void jsonOverSeveralDataLinesNeverBecomesAClaimTemplate() {
        // the first event is one JSON object over two data lines; the second looks alike but its "}" line is a
        // field of its own for SSE, so its data is the first line only: invalid JSON, which must stay an error
        String first = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]\ndata: }\n\n";
        String second = "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]\n}\n\n";
        byte[] all = (first + second).getBytes(StandardCharsets.UTF_8);
        int[] claims = {0};
        List<Object> expected = readStream(all, all.length, false, claims);
        assertThat(expected).contains(Outcome.FAILED);
        assertThat(readStream(all, all.length, true, claims)).isEqualTo(expected);
        assertThat(claims[0]).isZero();
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
        assertThat(chunks.firstChunkNanos()).isEqualTo(Moments.ABSENT);
    }
}
