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

    private static String delta(String type, long seq, String text) {
        return "{\"type\":\"" + type + "\",\"sequence_number\":" + seq
                + ",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"" + text + "\",\"logprobs\":[]}";
    }

    private static String completed(long seq) {
        return event("response.completed", "{\"type\":\"response.completed\",\"sequence_number\":" + seq
                + ",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":3,\"output_tokens\":2}}}");
    }

    @Test
    void everyDeltaAfterTheFirstIsClaimedWholeAcrossTheCountersDigitChanges() {
        // sequence numbers crossing 9 -> 10, 99 -> 100, 999 -> 1000 (the template predicts the next one, growing its
        // digits), then a jump and a fall (a counter that is not the predicted one still matches, as any integer)
        StringBuilder sse = new StringBuilder();
        StringBuilder text = new StringBuilder();
        long[] counters = java.util.stream.LongStream.concat(java.util.stream.LongStream.concat(
                java.util.stream.LongStream.rangeClosed(5, 12), java.util.stream.LongStream.rangeClosed(97, 102)),
                java.util.stream.LongStream.of(998, 999, 1000, 1001, 5000, 40, 41, 9_999_999_999L, 7)).toArray();
        for (long seq : counters) {
            String t = "t" + seq + " ";
            text.append(t);
            sse.append(event("response.output_text.delta", delta("response.output_text.delta", seq, t)));
        }
        byte[] all = (sse + completed(counters.length + 100)).getBytes(StandardCharsets.UTF_8);
        int[] claims = {0};
        List<Object> expected = read(ApiFormat.RESPONSES, all, all.length, false, claims);
        assertThat(expected.get(expected.size() - 7)).isEqualTo(text.toString());
        assertThat(read(ApiFormat.RESPONSES, all, all.length, true, claims)).isEqualTo(expected);
        assertThat(claims[0]).as("deltas claimed in place").isEqualTo(counters.length - 1);
        for (int cut = 0; cut <= all.length; cut++) {
            assertThat(read(ApiFormat.RESPONSES, all, cut, true, claims)).as("split at %d", cut).isEqualTo(expected);
        }
    }

    /**
     * Random Responses streams whose events vary in what the claim compares (event lines present or not, named
     * otherwise, doubled, without the space; "data:" without it; comment and id lines; CRLF and CR line ends;
     * counters consecutive, jumping, with a leading zero (invalid JSON); texts with escapes and UTF-8; reasoning
     * between text deltas): read with claims, split at every offset, each reads as without them.
     */
    @Test
    void randomFramingsReadTheSameClaimedOrNotWhereverTheyAreSplit() {
        java.util.SplittableRandom rng = new java.util.SplittableRandom(20);
        String[] texts = {"a", "tok ", "é", "\\n", "\\\"q\\\"", "日本", "x".repeat(30), ""};
        int claimed = 0;
        for (int stream = 0; stream < 40; stream++) {
            StringBuilder sse = new StringBuilder();
            long seq = new long[] {0, 7, 96, 997, 99_999_996}[rng.nextInt(5)];
            int deltas = 3 + rng.nextInt(12);
            for (int i = 0; i < deltas; i++) {
                boolean reasoning = rng.nextInt(6) == 0;
                String type = reasoning ? "response.reasoning_text.delta" : "response.output_text.delta";
                seq += rng.nextInt(8) == 0 ? 1 + rng.nextInt(500) : 1;
                String json = delta(type, seq, texts[rng.nextInt(texts.length)]);
                if (rng.nextInt(40) == 0) json = json.replace("\"sequence_number\":", "\"sequence_number\":0");
                String eol = switch (rng.nextInt(12)) {
                    case 0 -> "\r\n";
                    case 1 -> "\r";
                    default -> "\n";
                };
                String head = switch (rng.nextInt(10)) {
                    case 0 -> "";
                    case 1 -> "event:" + type + eol;
                    case 2 -> "event: other" + eol + "event: " + type + eol;
                    case 3 -> ": keep-alive" + eol + "event: " + type + eol;
                    case 4 -> "event: " + type + eol + "id: " + seq + eol;
                    case 5 -> "event: " + (reasoning ? "response.output_text.delta" : "response.reasoning_text.delta") + eol;
                    default -> "event: " + type + eol;
                };
                sse.append(head).append(rng.nextInt(10) == 0 ? "data:" : "data: ").append(json).append(eol).append(eol);
            }
            byte[] all = (sse + completed(seq + 1)).getBytes(StandardCharsets.UTF_8);
            int[] claims = {0};
            List<Object> expected = read(ApiFormat.RESPONSES, all, all.length, false, claims);
            for (int cut = 0; cut <= all.length; cut++) {
                assertThat(read(ApiFormat.RESPONSES, all, cut, true, claims)).as("stream %d split at %d", stream, cut)
                        .isEqualTo(expected);
            }
            claimed += claims[0];
        }
        assertThat(claimed).as("events claimed in place, over all streams and splits").isPositive();
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
