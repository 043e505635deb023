package io.unibench.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.client.ChunkInterpreter.Outcome;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ChunkInterpreterTest {

    private final ChunkInterpreter chunks = new ChunkInterpreter(new ObjectMapper());

    @Test
    void roleOnlyFirstChunkIsAChunkButNotAToken() {
        assertThat(chunks.onEvent(delta("{\"role\":\"assistant\",\"content\":\"\"}"), 10)).isEqualTo(Outcome.CONTINUE);
        assertThat(chunks.onEvent(delta("{\"content\":\"Hel\"}"), 20)).isEqualTo(Outcome.CONTINUE);
        assertThat(chunks.onEvent(delta("{\"content\":\"lo\"}"), 30)).isEqualTo(Outcome.CONTINUE);
        assertThat(chunks.onEvent(finish("stop"), 40)).isEqualTo(Outcome.CONTINUE);
        assertThat(chunks.onEvent("[DONE]", 50)).isEqualTo(Outcome.DONE);

        assertThat(chunks.firstChunkNanos()).isEqualTo(10);
        assertThat(chunks.firstTokenNanos()).isEqualTo(20);
        assertThat(chunks.tokenChunkNanos()).containsExactly(20, 30);
        assertThat(chunks.content()).isEqualTo("Hello");
        assertThat(chunks.reasoning()).isEmpty();
        assertThat(chunks.finishReason()).isEqualTo("stop");
        assertThat(chunks.lastEventNanos()).isEqualTo(50);
    }

    @Test
    void reasoningContentAndReasoningAreOutputTokens() {
        chunks.onEvent(delta("{\"reasoning_content\":\"think \"}"), 5);
        chunks.onEvent(delta("{\"reasoning\":\"more \"}"), 6);
        chunks.onEvent(delta("{\"content\":\"answer\",\"reasoning_content\":null}"), 7);
        assertThat(chunks.firstTokenNanos()).isEqualTo(5);
        assertThat(chunks.tokenChunkNanos()).containsExactly(5, 6, 7);
        assertThat(chunks.reasoning()).isEqualTo("think more ");
        assertThat(chunks.content()).isEqualTo("answer");
    }

    /** The scanner reads usage objects itself; every variant must read as the Jackson tree path reads it. */
    @Test
    void usageReadByTheScannerAsJacksonReadsIt() throws Exception {
        String[] usages = {
                "{\"prompt_tokens\":9,\"completion_tokens\":256,\"total_tokens\":265,\"prompt_tokens_details\":{\"cached_tokens\":0}}",
                "{}", "{ \"prompt_tokens\" : 7 , \"completion_tokens\" : null }",
                "{\"prompt_tokens\":-1,\"completion_tokens\":123456789}",
                "{\"prompt_tokens\":1234567890,\"completion_tokens\":99999999999}",
                "{\"prompt_tokens\":\"12\",\"completion_tokens\":3.7}", "{\"prompt_tokens\":1e2,\"completion_tokens\":true}",
                "{\"prompt_tokens\":1,\"prompt_tokens\":2,\"completion_tokens\":0}",
                "{\"prompt_tokens_details\":{\"cached_tokens\":5},\"prompt_tokens_details\":{\"audio\":1}}",
                "{\"prompt_tokens_details\":{\"cached_tokens\":5,\"cached_tokens\":6,\"x\":[1,{\"y\":2}]}}",
                "{\"prompt_tokens_details\":null,\"completion_tokens_details\":{\"reasoning_tokens\":4}}",
                "{\"prompt_tokens_details\":{\"cached_tokens\":null}}", "{\"prompt_tokens_details\":{\"cached_tokens\":\"3\"}}",
                "{\"prompt_tokens_details\":{\"cached_tokens\":2.0}}", "{\"prompt_tokens_details\":[1]}",
                "{\"prompt_tokens\":-0,\"completion_tokens\":-123456789}",
        };
        ObjectMapper mapper = new ObjectMapper();
        for (String u : usages) {
            ChunkInterpreter in = new ChunkInterpreter(mapper);
            in.onEvent(delta("{\"content\":\"x\"}"), 1);
            in.onEvent("{\"choices\":[],\"usage\":" + u + "}", 2);
            var node = mapper.readTree(u);
            var details = node.get("prompt_tokens_details");
            var cached = details != null && details.isObject() ? details.get("cached_tokens") : null;
            var reasoning = node.path("completion_tokens_details").get("reasoning_tokens");
            int cachedCount = cached != null && cached.isNumber() ? cached.asInt() : -1;
            Usage expected = new Usage(node.path("prompt_tokens").asInt(0), node.path("completion_tokens").asInt(0),
                    cachedCount, cachedCount < 0 ? null : Usage.OPENAI_CACHED,
                    reasoning != null && reasoning.isNumber() ? reasoning.asInt() : -1);
            assertThat(in.usage()).as(u).isEqualTo(expected);
        }
    }

    @Test
    void usageOnlyChunkWithEmptyChoicesIsNormal() {
        chunks.onEvent(delta("{\"content\":\"x\"}"), 1);
        chunks.onEvent(finish("length"), 2);
        chunks.onEvent("{\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":12,"
                + "\"total_tokens\":21,\"prompt_tokens_details\":{\"cached_tokens\":4}}}", 3);
        assertThat(chunks.onEvent("[DONE]", 4)).isEqualTo(Outcome.DONE);
        assertThat(chunks.usage()).isEqualTo(new Usage(9, 12, 4));
        assertThat(chunks.tokenChunkNanos()).containsExactly(1); // the usage chunk carries no token
        assertThat(chunks.finishReason()).isEqualTo("length");
    }

    @Test
    void cachedTokensAbsentOrNullIsMinusOne() {
        chunks.onEvent("{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}", 1);
        assertThat(chunks.usage()).isEqualTo(new Usage(3, 2, -1));
        chunks.onEvent("{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,"
                + "\"prompt_tokens_details\":null}}", 2);
        assertThat(chunks.usage()).isEqualTo(new Usage(3, 2, -1));
        chunks.onEvent("{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":null}}}", 3);
        assertThat(chunks.usage()).isEqualTo(new Usage(3, 2, -1));
        chunks.onEvent("{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":0}}}", 4);
        assertThat(chunks.usage()).isEqualTo(new Usage(3, 2, 0));
    }

    @Test
    void usageNullOnOrdinaryChunksIsIgnored() {
        chunks.onEvent("{\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}", 1);
        chunks.onEvent("{\"choices\":[{\"delta\":{}}],\"usage\":null}", 2);
        assertThat(chunks.usage()).isEqualTo(new Usage(1, 1, -1));
    }

    @Test
    void legacyCompletionsText() {
        chunks.onEvent("{\"object\":\"text_completion\",\"choices\":[{\"text\":\" Hello\",\"finish_reason\":null}]}", 1);
        chunks.onEvent("{\"object\":\"text_completion\",\"choices\":[{\"text\":\"\",\"finish_reason\":\"length\"}]}", 2);
        assertThat(chunks.onEndOfStream()).isEqualTo(Outcome.DONE); // finish_reason seen: no [DONE] needed
        assertThat(chunks.content()).isEqualTo(" Hello");
        assertThat(chunks.tokenChunkNanos()).containsExactly(1);
        assertThat(chunks.finishReason()).isEqualTo("length");
    }

    @Test
    void errorObjectInStreamIsABusinessError() {
        chunks.onEvent(delta("{\"content\":\"x\"}"), 1);
        assertThat(chunks.onEvent("{\"error\":{\"message\":\"boom sk-abcdef123456\",\"type\":\"InternalServerError\","
                + "\"code\":500}}", 2)).isEqualTo(Outcome.FAILED);
        assertThat(chunks.failure()).isEqualTo(ErrorClass.BUSINESS_ERROR);
        assertThat(chunks.failureMessage()).isEqualTo("boom sk-***456");
    }

    @Test
    void oldVllmTopLevelErrorIsABusinessError() {
        assertThat(chunks.onEvent("{\"object\":\"error\",\"message\":\"bad\",\"code\":400}", 1))
                .isEqualTo(Outcome.FAILED);
        assertThat(chunks.failureMessage()).isEqualTo("bad");
    }

    @Test
    void invalidJsonIsAProtocolError() {
        assertThat(chunks.onEvent("{\"choices\":[", 1)).isEqualTo(Outcome.FAILED);
        assertThat(chunks.failure()).isEqualTo(ErrorClass.PROTOCOL_ERROR);
        assertThat(new ChunkInterpreter(new ObjectMapper()).onEvent("42", 1)).isEqualTo(Outcome.FAILED);
    }

    @Test
    void streamWithoutChoicesOrEndMarkerIsABusinessError() {
        assertThat(chunks.onEvent("[DONE]", 1)).isEqualTo(Outcome.FAILED);
        assertThat(chunks.failure()).isEqualTo(ErrorClass.BUSINESS_ERROR);

        ChunkInterpreter noEnd = new ChunkInterpreter(new ObjectMapper());
        noEnd.onEvent(delta("{\"content\":\"x\"}"), 1);
        assertThat(noEnd.onEndOfStream()).isEqualTo(Outcome.FAILED);
        assertThat(noEnd.failure()).isEqualTo(ErrorClass.BUSINESS_ERROR);
    }

    @Test
    void nonStreamedBody() {
        byte[] body = ("{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                + "\"content\":\"Hi there\",\"reasoning_content\":\"hmm\"},\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":7,\"prompt_tokens_details\":{\"cached_tokens\":0}}}")
                .getBytes(StandardCharsets.UTF_8);
        assertThat(chunks.onBody(body, body.length, 99)).isEqualTo(Outcome.DONE);
        assertThat(chunks.content()).isEqualTo("Hi there");
        assertThat(chunks.reasoning()).isEqualTo("hmm");
        assertThat(chunks.usage()).isEqualTo(new Usage(5, 7, 0));
        assertThat(chunks.finishReason()).isEqualTo("stop");
        assertThat(chunks.firstChunkNanos()).isEqualTo(99);
        assertThat(chunks.firstTokenNanos()).isEqualTo(99);
        assertThat(chunks.tokenChunkNanos()).isEmpty();
    }

    @Test
    void nonStreamedBodyFailures() {
        byte[] noChoices = "{\"choices\":[]}".getBytes(StandardCharsets.UTF_8);
        assertThat(chunks.onBody(noChoices, noChoices.length, 1)).isEqualTo(Outcome.FAILED);
        assertThat(chunks.failure()).isEqualTo(ErrorClass.BUSINESS_ERROR);

        ChunkInterpreter broken = new ChunkInterpreter(new ObjectMapper());
        byte[] notJson = "<html>".getBytes(StandardCharsets.UTF_8);
        assertThat(broken.onBody(notJson, notJson.length, 1)).isEqualTo(Outcome.FAILED);
        assertThat(broken.failure()).isEqualTo(ErrorClass.PROTOCOL_ERROR);
    }

    /** llama.cpp's last chunk: finish reason, usage and its timings object, read on the scanner's path. */
    private static final String LLAMA_CPP_TIMINGS = "{\"cache_n\":92,\"prompt_n\":41,\"prompt_ms\":38.125,"
            + "\"prompt_per_token_ms\":0.93,\"prompt_per_second\":1075.4,\"predicted_n\":133,"
            + "\"predicted_ms\":565.92,\"predicted_per_token_ms\":4.25,\"predicted_per_second\":235.0}";

    @Test
    void llamaCppTimingsInTheLastChunkAreKept() {
        chunks.onEvent(delta("{\"content\":\"a\"}"), 1);
        chunks.onEvent(delta("{\"content\":\"b\"}"), 2); // the scanner now has a token template
        assertThat(chunks.onEvent("{\"choices\":[{\"finish_reason\":\"stop\",\"index\":0,\"delta\":{}}],"
                + "\"object\":\"chat.completion.chunk\",\"usage\":{\"completion_tokens\":133,\"prompt_tokens\":133,"
                + "\"total_tokens\":266},\"timings\":" + LLAMA_CPP_TIMINGS + "}", 3)).isEqualTo(Outcome.CONTINUE);
        assertThat(chunks.onEvent("[DONE]", 4)).isEqualTo(Outcome.DONE);
        assertThat(chunks.timings()).isEqualTo(new Timings(41, 38.125, 133, 565.92, 92));
        assertThat(chunks.usage()).isEqualTo(new Usage(133, 133, -1));
        assertThat(chunks.content()).isEqualTo("ab");
    }

    @Test
    void timingsAlsoReadOnJacksonsPathAndInANonStreamedBody() {
        // an escaped key sends the chunk to Jackson's streaming reader
        chunks.onEvent("{\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"\\u0078\":1,\"timings\":"
                + LLAMA_CPP_TIMINGS + "}", 1);
        assertThat(chunks.timings()).isEqualTo(new Timings(41, 38.125, 133, 565.92, 92));

        ChunkInterpreter body = new ChunkInterpreter(new ObjectMapper());
        byte[] bytes = ("{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
                + "\"timings\":{\"prompt_n\":3,\"prompt_ms\":1.5}}").getBytes(StandardCharsets.UTF_8);
        assertThat(body.onBody(bytes, bytes.length, 9)).isEqualTo(Outcome.DONE);
        assertThat(body.timings()).isEqualTo(new Timings(3, 1.5, -1, Double.NaN, -1)); // absent fields unknown
        assertThat(new ChunkInterpreter(new ObjectMapper()).timings()).isNull();
    }

    @Test
    void aChunkWithTimingsIsNeverTheTokenTemplate() {
        // were it the template, the next chunk with the same bytes but another string would skip its timings read
        String withTimings = "{\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"timings\":" + LLAMA_CPP_TIMINGS + "}";
        chunks.onEvent(withTimings, 1);
        chunks.onEvent(withTimings.replace("\"a\"", "\"b\"").replace("\"prompt_n\":41", "\"prompt_n\":42"), 2);
        assertThat(chunks.timings().promptN()).isEqualTo(42);
    }

    @Test
    void errorTypesKeepTheServersWords() {
        chunks.onEvent(delta("{\"content\":\"x\"}"), 1);
        chunks.onEvent("{\"error\":{\"message\":\"failed\",\"type\":\"server_error\",\"code\":500}}", 2);
        assertThat(chunks.failureType()).isEqualTo("server_error"); // a numeric code only repeats the status

        ChunkInterpreter old = new ChunkInterpreter(new ObjectMapper());
        old.onEvent("{\"object\":\"error\",\"message\":\"bad\",\"type\":\"BadRequestError\",\"code\":400}", 1);
        assertThat(old.failureType()).isEqualTo("BadRequestError");

        byte[] llama = ("{\"error\":{\"code\":400,\"message\":\"the request exceeds the available context size\","
                + "\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":5000,\"n_ctx\":4096}}")
                .getBytes(StandardCharsets.UTF_8);
        assertThat(ChunkInterpreter.serverError(new ObjectMapper(), llama, llama.length)).isEqualTo(
                new ChunkInterpreter.ServerError("the request exceeds the available context size",
                        "exceed_context_size_error"));
        byte[] openai = ("{\"error\":{\"message\":\"too long\",\"type\":\"invalid_request_error\","
                + "\"code\":\"context_length_exceeded\"}}").getBytes(StandardCharsets.UTF_8);
        assertThat(ChunkInterpreter.serverError(new ObjectMapper(), openai, openai.length).type())
                .isEqualTo("invalid_request_error/context_length_exceeded");
        byte[] bare = "{\"error\":{\"message\":\"no type\"}}".getBytes(StandardCharsets.UTF_8);
        assertThat(ChunkInterpreter.serverError(new ObjectMapper(), bare, bare.length).type()).isNull();
    }

    private static String delta(String delta) {
        return "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":" + delta
                + ",\"finish_reason\":null}],\"usage\":null}";
    }

    private static String finish(String reason) {
        return "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" + reason + "\"}]}";
    }
}
