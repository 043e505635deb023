package io.unibench.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.client.ChunkInterpreter.Outcome;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The Responses API's and Anthropic's streams and bodies, and the vendor shapes of usage. */
class TypedEventsTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static String event(String name, String json) {
        return "event: " + name + "\ndata: " + json + "\n\n";
    }

    private static String responsesStream(String... words) {
        StringBuilder sb = new StringBuilder();
        int seq = 0;
        sb.append(event("response.created", "{\"type\":\"response.created\",\"sequence_number\":" + seq++
                + ",\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\",\"output\":[],\"usage\":null}}"));
        sb.append(event("response.reasoning_summary_text.delta", "{\"type\":\"response.reasoning_summary_text.delta\","
                + "\"sequence_number\":" + seq++ + ",\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,\"delta\":\"think\"}"));
        for (String w : words) {
            sb.append(event("response.output_text.delta", "{\"type\":\"response.output_text.delta\",\"sequence_number\":"
                    + seq++ + ",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"" + w + "\",\"logprobs\":[]}"));
        }
        // vLLM orders members alphabetically: the delta before the type
        sb.append(event("response.output_text.delta", "{\"content_index\":0,\"delta\":\" end\",\"item_id\":\"msg_1\","
                + "\"output_index\":0,\"sequence_number\":" + seq++ + ",\"type\":\"response.output_text.delta\"}"));
        sb.append(event("response.output_text.done", "{\"type\":\"response.output_text.done\",\"sequence_number\":"
                + seq++ + ",\"text\":\"ignored: a repeat\"}"));
        sb.append(event("response.completed", "{\"type\":\"response.completed\",\"sequence_number\":" + seq
                + ",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":30,\"input_tokens_details\":"
                + "{\"cached_tokens\":16},\"output_tokens\":9,\"total_tokens\":39}}}"));
        return sb.toString();
    }

    private static String anthropicStream() {
        return event("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
                + "\"content\":[],\"usage\":{\"input_tokens\":5,\"cache_creation_input_tokens\":3,"
                + "\"cache_read_input_tokens\":12,\"output_tokens\":1}}}")
                + event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"m\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"x\"}}")
                + ": a comment\n\n"
                + event("ping", "{\"type\": \"ping\"}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\" wörld\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"!\"}}")
                + event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}")
                + event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
                + "\"usage\":{\"output_tokens\":7}}")
                + event("message_stop", "{\"type\":\"message_stop\"}");
    }

    /** Outcomes of every event, then content, reasoning, token times, finish reason, usage, failure. */
    private static List<Object> read(ApiFormat api, byte[] sse, int cut, boolean claiming, int[] claims) {
        ChunkInterpreter in = new ChunkInterpreter(MAPPER, new ChunkScanner(), api);
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
        outcomes.add(in.onEndOfStream());
        outcomes.addAll(Arrays.asList(in.content(), in.reasoning(), Arrays.toString(in.tokenChunkNanos()),
                in.finishReason(), in.usage(), in.failure(), in.failureMessage()));
        return outcomes;
    }

    @Test
    void responsesStreamReadsDeltasReasoningAndTheCompletedUsageWhereverItIsSplit() {
        byte[] all = responsesStream("He", "llo", " wörld", "\\\"q\\\"").getBytes(StandardCharsets.UTF_8);
        int[] claims = {0};
        List<Object> expected = read(ApiFormat.RESPONSES, all, all.length, false, claims);
        assertThat(expected.subList(expected.size() - 8, expected.size())).containsExactly(Outcome.DONE,
                "Hello wörld\"q\" end", "think", "[101, 102, 103, 104, 105, 106]", "completed",
                new Usage(30, 9, 16, Usage.RESPONSES_CACHED), null, null);
        assertThat(expected.get(expected.size() - 9)).as("response.completed ends the reply").isEqualTo(Outcome.DONE);
        for (int cut = 0; cut <= all.length; cut += 7) {
            assertThat(read(ApiFormat.RESPONSES, all, cut, true, claims)).as("split at %d", cut).isEqualTo(expected);
        }
    }

    @Test
    void anthropicStreamReadsThinkingAndTextAndMergesItsTwoUsages() {
        byte[] all = anthropicStream().getBytes(StandardCharsets.UTF_8);
        int[] claims = {0};
        List<Object> expected = read(ApiFormat.ANTHROPIC, all, all.length, false, claims);
        assertThat(expected.subList(expected.size() - 8, expected.size())).containsExactly(Outcome.DONE, "Hello wörld!",
                "hmm", "[102, 103, 106, 107, 108, 109]", "end_turn",
                new Usage(20, 7, 12, Usage.ANTHROPIC_CACHED), null, null);
        for (int cut = 0; cut <= all.length; cut += 7) {
            assertThat(read(ApiFormat.ANTHROPIC, all, cut, true, claims)).as("split at %d", cut).isEqualTo(expected);
        }
        assertThat(claims[0]).as("text deltas after the first are claimed in place (the scanner's template)").isPositive();
    }

    @Test
    void typedStreamsEndOnlyWithTheirLastEvent() {
        String cut = responsesStream("a").replaceAll("event: response.completed[^\n]*\ndata: [^\n]*\n\n", "");
        List<Object> r = read(ApiFormat.RESPONSES, cut.getBytes(StandardCharsets.UTF_8), 0, false, new int[1]);
        assertThat(r).contains(ErrorClass.BUSINESS_ERROR, "stream ended before response.completed");
        String done = anthropicStream().replace(event("message_stop", "{\"type\":\"message_stop\"}"), "data: [DONE]\n\n");
        r = read(ApiFormat.ANTHROPIC, done.getBytes(StandardCharsets.UTF_8), 0, false, new int[1]);
        assertThat(r).contains(ErrorClass.BUSINESS_ERROR, "[DONE] before message_stop");
    }

    @Test
    void failuresKeepTheServersErrorType() {
        ChunkInterpreter in = new ChunkInterpreter(MAPPER, ApiFormat.RESPONSES);
        assertThat(in.onEvent("{\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":"
                + "{\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\"}}}", 1)).isEqualTo(Outcome.FAILED);
        assertThat(in.failure()).isEqualTo(ErrorClass.BUSINESS_ERROR);
        assertThat(in.failureType()).isEqualTo("rate_limit_exceeded");
        assertThat(in.failureMessage()).isEqualTo("slow down");

        in = new ChunkInterpreter(MAPPER, ApiFormat.RESPONSES);
        assertThat(in.onEvent("{\"type\":\"error\",\"code\":\"ERR_X\",\"message\":\"bad\",\"sequence_number\":3}", 1))
                .isEqualTo(Outcome.FAILED);
        assertThat(in.failureType()).isEqualTo("ERR_X");

        in = new ChunkInterpreter(MAPPER, ApiFormat.ANTHROPIC);
        assertThat(in.onEvent("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", 1))
                .isEqualTo(Outcome.FAILED);
        assertThat(in.failureType()).isEqualTo("overloaded_error");
        assertThat(in.failureMessage()).isEqualTo("Overloaded");
    }

    @Test
    void cachedTokensFromEachVendorsShapeWithTheirSource() {
        ChunkInterpreter in = new ChunkInterpreter(MAPPER);
        in.onEvent("{\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,\"total_tokens\":12,"
                + "\"prompt_cache_hit_tokens\":6,\"prompt_cache_miss_tokens\":4}}", 1);
        assertThat(in.usage()).isEqualTo(new Usage(10, 2, 6, Usage.DEEPSEEK_CACHED));

        in = new ChunkInterpreter(MAPPER); // OpenAI's field wins where a server sends both
        in.onEvent("{\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":8},\"prompt_cache_hit_tokens\":6}}", 1);
        assertThat(in.usage()).isEqualTo(new Usage(10, 2, 8, Usage.OPENAI_CACHED));

        in = new ChunkInterpreter(MAPPER);
        in.onEvent("{\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2}}", 1);
        assertThat(in.usage()).isEqualTo(new Usage(10, 2, -1, null));
    }

    private static ChunkInterpreter body(ApiFormat api, String json, Outcome outcome) {
        ChunkInterpreter in = new ChunkInterpreter(MAPPER, api);
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        assertThat(in.onBody(b, b.length, 5)).isEqualTo(outcome);
        return in;
    }

    @Test
    void nonStreamedBodiesOfEachApi() {
        ChunkInterpreter in = body(ApiFormat.RESPONSES, "{\"object\":\"response\",\"status\":\"incomplete\","
                + "\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"output\":[{\"type\":\"reasoning\","
                + "\"summary\":[{\"type\":\"summary_text\",\"text\":\"why\"}]},{\"type\":\"message\",\"content\":"
                + "[{\"type\":\"output_text\",\"text\":\"Hi\"}]}],\"usage\":{\"input_tokens\":4,\"output_tokens\":3}}", Outcome.DONE);
        assertThat(in.content()).isEqualTo("Hi");
        assertThat(in.reasoning()).isEqualTo("why");
        assertThat(in.finishReason()).isEqualTo("max_output_tokens");
        assertThat(in.usage()).isEqualTo(new Usage(4, 3, -1, null));

        in = body(ApiFormat.ANTHROPIC, "{\"type\":\"message\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"t\"},"
                + "{\"type\":\"text\",\"text\":\"Yo\"}],\"stop_reason\":\"max_tokens\",\"usage\":{\"input_tokens\":2,"
                + "\"cache_read_input_tokens\":8,\"output_tokens\":4}}", Outcome.DONE);
        assertThat(in.content()).isEqualTo("Yo");
        assertThat(in.reasoning()).isEqualTo("t");
        assertThat(in.finishReason()).isEqualTo("max_tokens");
        assertThat(in.usage()).isEqualTo(new Usage(10, 4, 8, Usage.ANTHROPIC_CACHED));

        in = body(ApiFormat.EMBEDDING, "{\"object\":\"list\",\"data\":[{\"embedding\":[0.1]}],\"usage\":{\"total_tokens\":7}}", Outcome.DONE);
        assertThat(in.usage()).isEqualTo(new Usage(7, 0, -1, null));
        assertThat(in.content()).isEmpty();

        in = body(ApiFormat.RERANK, "{\"data\":[]}", Outcome.FAILED);
        assertThat(in.failureMessage()).isEqualTo("reply has no results");
        in = body(ApiFormat.RESPONSES, "{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}", Outcome.FAILED);
        assertThat(in.failureType()).isEqualTo("server_error");
    }
}
