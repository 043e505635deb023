package io.unibench.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The fast chunk scanner agrees with Jackson on what it accepts, and hands back what it should not decide. */
class ChunkScannerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ChunkScanner scanner = new ChunkScanner();

    private static final List<String> VALID = List.of(
            "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1732000000,\"model\":\"m\",\"choices\":[{\"index\":0,"
                    + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}",
            "{\"choices\":[{\"delta\":{\"content\":\"line\\nbreak \\\"q\\\" \\\\ \\/ \\t\\u00e9\\ud83d\\ude00 é中文\"}}]}",
            "  {\"choices\" : [ { \"delta\" : { \"reasoning_content\" : \"think\" , \"reasoning\":\"r\" } , \"text\":\"t\","
                    + "\"finish_reason\":\"stop\" } , {\"delta\":{\"content\":\"second\"}} , 5 ] }  ",
            "{\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":256,\"prompt_tokens_details\":{\"cached_tokens\":3}}}",
            "{\"a\":[1,-2.5e+3,0.0,true,false,null,{\"b\":[[]]},\"x\"],\"choices\":[7],\"error\":null}",
            "{\"choices\":[{\"delta\":{\"content\":null,\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"a\\\":1}\"}}]},"
                    + "\"finish_reason\":null}]}",
            "{\"choices\":{\"not\":\"an array\"},\"object\":\"text_completion\"}",
            "{}");

    private static final List<String> HANDED_BACK = List.of(
            "{\"error\":{\"message\":\"boom\"}}",
            "{\"object\":\"error\",\"message\":\"bad\"}",
            "{\"choices\":[",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":tru}",
            "{\"a\":\"raw\ncontrol\"}",
            "{\"a\":\"bad \\x escape\"}",
            "{\"a\":1} trailing",
            "{\"a\":1,}",
            "{\"k\\u0065y\":1}",
            "[1]",
            "\"s\"",
            "{" + "\"a\":[".repeat(40) + "]".repeat(40) + "}");

    private boolean scan(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return scanner.scan(bytes, 0, bytes.length);
    }

    @Test
    void agreesWithJacksonOnValidChunks() throws Exception {
        for (String json : VALID) {
            assertThat(scan(json)).as(json).isTrue();
            JsonNode root = JSON.readTree(json);
            JsonNode choices = root.path("choices");
            JsonNode first = choices.isArray() && !choices.isEmpty() && choices.get(0).isObject() ? choices.get(0) : null;
            assertThat(scanner.choice).as(json).isEqualTo(first != null);
            JsonNode delta = first == null ? null : first.path("delta");
            assertThat(scanner.content).as(json).isEqualTo(textOf(delta, "content"));
            assertThat(scanner.reasoningContent).as(json).isEqualTo(textOf(delta, "reasoning_content"));
            assertThat(scanner.reasoning).as(json).isEqualTo(textOf(delta, "reasoning"));
            assertThat(scanner.text).as(json).isEqualTo(textOf(first, "text"));
            assertThat(scanner.finishReason).as(json).isEqualTo(textOf(first, "finish_reason"));
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            if (root.path("usage").isObject()) {
                assertThat(JSON.readTree(bytes, scanner.usageStart, scanner.usageEnd - scanner.usageStart))
                        .isEqualTo(root.get("usage"));
            } else {
                assertThat(scanner.usageStart).isEqualTo(-1);
            }
        }
    }

    @Test
    void readsPlainUsageItselfAndLeavesOddValuesToJackson() {
        assertThat(scan("{\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":256,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":3}}}")).isTrue();
        assertThat(scanner.usageRead).isTrue();
        assertThat(new int[] {scanner.usage.promptTokens, scanner.usage.completionTokens, scanner.usage.promptDetailsCached})
                .containsExactly(9, 256, 3);
        assertThat(scan("{\"choices\":[],\"usage\":{\"prompt_tokens\":\"9\"}}")).isTrue();
        assertThat(scanner.usageRead).isFalse();
        assertThat(scan("{\"choices\":[],\"usage\":{\"completion_tokens\":1.5}}")).isTrue();
        assertThat(scanner.usageRead).isFalse();
        assertThat(scan("{\"choices\":[],\"usage\":null}")).isTrue();
        assertThat(scanner.usageRead).isFalse();
    }

    @Test
    void aRoleChunkDoesNotReplaceTheTokenTemplate() {
        String token = "{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}";
        String role = "{\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}";
        assertThat(scan(token)).isTrue();
        assertThat(scan(role)).isTrue();
        byte[] next = token.replace("\"a\"", "\"bc\"").getBytes(StandardCharsets.UTF_8);
        assertThat(scanner.scan(next, 0, next.length)).isTrue(); // still the token template
        assertThat(scanner.rawField).as("read on the template path").isEqualTo(ChunkScanner.HOLE_CONTENT);
        assertThat(scanner.rawLength).isEqualTo(2);
    }

    private static byte[] deltaEvent(String counter) {
        return ("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":"
                + counter + ",\"delta\":\"t\"}\n\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theFramedTemplatesCounterTakesAnyIntegerAndNothingElse() {
        byte[] first = deltaEvent("9");
        int data = "event: response.output_text.delta\ndata: ".length();
        assertThat(scanner.scan(first, 0, data, first.length - data - 2)).isTrue(); // the template, predicting 10
        for (String bad : List.of("1,", "10,", "010", "1a", "-10", "10.5", "1e3", "\"10\"", "12345678901")) {
            byte[] event = deltaEvent(bad);
            assertThat(scanner.claim(event, 0, event.length)).as(bad).isEqualTo(-1);
        }
        for (String good : List.of("10", "11", "1", "99", "100", "0", "1234567890", "5")) {
            byte[] event = deltaEvent(good);
            assertThat(scanner.claim(event, 0, event.length)).as(good).isEqualTo(event.length);
            assertThat(scanner.claim(event, 0, event.length - 1)).as("%s without its last LF", good).isEqualTo(-1);
        }
        byte[] unframed = deltaEvent("6");
        assertThat(scanner.claim(unframed, data, unframed.length)).as("data line alone").isEqualTo(-1);
    }

    @Test
    void handsBackErrorsAndAnythingJacksonMustJudge() {
        for (String json : HANDED_BACK) assertThat(scan(json)).as(json).isFalse();
    }

    @Test
    void readsOnlyItsSliceOfAReusedBuffer() {
        byte[] chunk = "{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}".getBytes(StandardCharsets.UTF_8);
        byte[] buf = new byte[chunk.length + 10];
        java.util.Arrays.fill(buf, (byte) '{');
        System.arraycopy(chunk, 0, buf, 5, chunk.length);
        assertThat(scanner.scan(buf, 5, chunk.length)).isTrue();
        assertThat(scanner.content).isEqualTo("x");
    }

    /** A server's run of chunks and the odd ones in between: the template path must agree with a fresh scan. */
    private static final List<String> RUN = List.of(
            chunk("\"role\":\"assistant\",\"content\":\"\""),
            chunk("\"content\":\"tok0 \""),
            chunk("\"content\":\"tok1 \""),
            chunk("\"content\":\"\""),
            chunk("\"content\":\"é中 🎉\""),
            chunk("\"content\":\"esc \\\"},\\\"finish_reason\\\":\\\"stop\\n\\u00e9\""),
            chunk("\"content\":\"tok2\""),
            chunk("\"content\":\"raw\ncontrol\""),
            chunk("\"content\":\"bad \\x escape\""),
            chunk("\"content\":\"unterminated"),
            chunk("\"content\":\"tok3\"") + " ",
            chunk("\"content\":\"tok4\"") + "x",
            chunk("\"content\":\"tok5\"").replace("\"usage\":null", "\"usage\":nul"),
            chunk("\"content\":\"tok6\"").replace("\"finish_reason\":null", "\"finish_reason\":\"length\""),
            chunk("\"content\":\"tok7\"").replace("\"finish_reason\":null", "\"finish_reason\":\"length\""),
            chunk("\"content\":\"tok8\""),
            chunk("\"reasoning_content\":\"think\""),
            chunk("\"reasoning_content\":\"more\""),
            chunk("\"reasoning\":\"r1\""),
            chunk("\"reasoning\":\"r2\""),
            chunk("\"content\":\"a\",\"content\":\"b\""),
            chunk("\"content\":\"c\",\"content\":\"d\""),
            "{\"choices\":[{\"text\":\"t1\",\"finish_reason\":null}]}",
            "{\"choices\":[{\"text\":\"t2\",\"finish_reason\":null}]}",
            "{\"choices\":[{\"text\":\"\",\"finish_reason\":null}]}",
            "{\"choices\":[{\"text\":\"t3\",\"finish_reason\":null}]",
            "{\"choices\":[{\"text\":\"t3\",\"finish_reason\":null}]}}",
            "{\"choices\":[{\"text\":\"t3\"",
            chunk("").replace("\"finish_reason\":null", "\"finish_reason\":\"stop\""),
            "{\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2}}",
            chunk("\"content\":\"tok9\""),
            "{\"error\":{\"message\":\"boom\"}}",
            chunk("\"content\":\"tok10\""));

    private static String chunk(String delta) {
        return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1732000000,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"delta\":{" + delta + "},\"logprobs\":null,\"finish_reason\":null}],"
                + "\"usage\":null}";
    }

    @Test
    void templatePathAgreesWithAFreshScanOfEveryChunk() {
        int raw = 0;
        for (int round = 0; round < 2; round++) {
            for (String json : RUN) {
                byte[] data = json.getBytes(StandardCharsets.UTF_8);
                byte[] buf = new byte[data.length + 8]; // a slice of a larger, reused buffer, as from the SSE parser
                java.util.Arrays.fill(buf, (byte) '"');
                System.arraycopy(data, 0, buf, 3, data.length);
                ChunkScanner fresh = new ChunkScanner();
                boolean expected = fresh.scan(data, 0, data.length);
                assertThat(scanner.scan(buf, 3, data.length)).as(json).isEqualTo(expected);
                if (!expected) continue;
                if (scanner.rawField != ChunkScanner.NO_HOLE) raw++;
                assertThat(fields(scanner, buf)).as(json).isEqualTo(fields(fresh, data));
                assertThat(scanner.usageStart - (scanner.usageStart < 0 ? 0 : 3)).as(json).isEqualTo(fresh.usageStart);
            }
        }
        assertThat(raw).as("chunks read on the template path as raw ASCII").isGreaterThanOrEqualTo(12);
    }

    /** choice, content, reasoning_content, reasoning, text, finish_reason, with a raw field made a String. */
    private static List<Object> fields(ChunkScanner sc, byte[] buf) {
        String[] text = {sc.content, sc.reasoningContent, sc.reasoning, sc.text};
        if (sc.rawField != ChunkScanner.NO_HOLE) {
            assertThat(text[sc.rawField]).isNull();
            text[sc.rawField] = new String(buf, sc.rawStart, sc.rawLength, StandardCharsets.US_ASCII);
        }
        return java.util.Arrays.asList(sc.choice, text[0], text[1], text[2], text[3], sc.finishReason);
    }

    private static String textOf(JsonNode node, String field) {
        if (node == null || !node.isObject()) return null;
        JsonNode v = node.get(field);
        return v != null && v.isTextual() ? v.textValue() : null;
    }
}
