package io.unibench.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.client.ChunkInterpreter.Outcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Responses API's end event is read without its output array where the usage member follows it (the scanner's
 * shortcut); every shape the shortcut relies on, or must not be fooled by, reads as a whole scan reads it.
 */
class ResponsesEndEventTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String USAGE = "{\"input_tokens\":30,\"input_tokens_details\":{\"cached_tokens\":16},"
            + "\"output_tokens\":9,\"output_tokens_details\":{\"reasoning_tokens\":4},\"total_tokens\":39}";
    private static final Usage EXPECTED = new Usage(30, 9, 16, Usage.RESPONSES_CACHED, 4); // 4 of the output reasoned

    private static String output(String text) {
        return "[{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"completed\",\"content\":[{\"type\":\"output_text\","
                + "\"annotations\":[],\"text\":\"" + text + "\"}],\"role\":\"assistant\"}]";
    }

    /** A response.completed event whose response object has {@code members}, after OpenAI's usual head. */
    private static String completed(String members) {
        return "{\"type\":\"response.completed\",\"sequence_number\":12,\"response\":{\"id\":\"resp_1\",\"object\":"
                + "\"response\",\"status\":\"completed\",\"error\":null,\"incomplete_details\":null," + members + "}}";
    }

    private final ChunkScanner scanner = new ChunkScanner();

    private ChunkInterpreter read(String event) {
        ChunkInterpreter in = new ChunkInterpreter(MAPPER, scanner, ApiFormat.RESPONSES);
        assertThat(in.onEvent(event, 1)).as(event).isEqualTo(Outcome.DONE);
        return in;
    }

    @Test
    void usageAfterTheOutputIsReadWithoutTheOutput() {
        ChunkInterpreter in = read(completed("\"output\":" + output("Hello") + ",\"usage\":" + USAGE
                + ",\"user\":null,\"metadata\":{}"));
        assertThat(in.usage()).isEqualTo(EXPECTED);
        assertThat(in.finishReason()).isEqualTo("completed");
        assertThat(scanner.skippedOutput).isTrue();
        // the same with whitespace around every token and the sequence number after the response (OpenAI's docs)
        in = read("{ \"type\" : \"response.completed\" , \"response\" : { \"status\" : \"completed\" , \"output\" : "
                + output("Hi") + " , \"usage\" : " + USAGE + " } , \"sequence_number\" : 3 }");
        assertThat(in.usage()).isEqualTo(EXPECTED);
        assertThat(scanner.skippedOutput).isTrue();
    }

    @Test
    void usageBeforeTheOutputIsReadByTheWholeScan() {
        ChunkInterpreter in = read(completed("\"usage\":" + USAGE + ",\"output\":" + output("Hello")));
        assertThat(in.usage()).isEqualTo(EXPECTED);
        assertThat(scanner.skippedOutput).isFalse();
    }

    @Test
    void usageInsideStringsAndEscapedNamesAreNotTheUsage() {
        String fake = "\\\"usage\\\":{\\\"input_tokens\\\":999}";
        // the output's text names a usage; so does a metadata string after the real usage
        ChunkInterpreter in = read(completed("\"output\":" + output("the " + fake + " is " + fake) + ",\"usage\":"
                + USAGE + ",\"metadata\":{\"note\":\"" + fake + "\"}"));
        assertThat(in.usage()).isEqualTo(EXPECTED);
        assertThat(scanner.skippedOutput).isTrue();
        // a member name ending in an escaped quote and usage, after the real usage: passed over, not taken for it
        in = read(completed("\"output\":" + output("x") + ",\"usage\":" + USAGE
                + ",\"meta\\\"usage\":{\"input_tokens\":999}"));
        assertThat(in.usage()).isEqualTo(EXPECTED);
        // a string ending in a backslash, then a real usage member: an even run of backslashes escapes nothing
        in = read(completed("\"output\":" + output("x") + ",\"note\":\"ends in \\\\\",\"usage\":" + USAGE));
        assertThat(in.usage()).isEqualTo(EXPECTED);
        assertThat(scanner.skippedOutput).isTrue();
    }

    @Test
    void aNestedUsageMemberAfterTheRealOneFallsBackToTheWholeScan() {
        ChunkInterpreter in = read(completed("\"output\":" + output("x") + ",\"usage\":" + USAGE
                + ",\"metadata\":{\"k\":1,\"usage\":{\"input_tokens\":999,\"output_tokens\":999}}"));
        assertThat(in.usage()).isEqualTo(EXPECTED);
        assertThat(scanner.skippedOutput).isFalse();
    }

    @Test
    void aUsageLessCompletedEventHasNoUsage() {
        assertThat(read(completed("\"output\":" + output("x") + ",\"usage\":null")).usage()).isNull();
        assertThat(scanner.skippedOutput).isTrue();
        assertThat(read(completed("\"output\":" + output("x"))).usage()).isNull();
        assertThat(scanner.skippedOutput).isFalse();
        // an output item with a usage member of its own (a tool's), and none in the response
        String toolItem = "[{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"{}\",\"usage\":{\"input_tokens\":7}}]";
        assertThat(read(completed("\"output\":" + toolItem)).usage()).isNull();
        assertThat(scanner.skippedOutput).isFalse();
    }

    @Test
    void anIncompleteResponseKeepsItsReasonAndUsage() {
        ChunkInterpreter in = read("{\"type\":\"response.incomplete\",\"sequence_number\":9,\"response\":{\"status\":"
                + "\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"output\":" + output("cut")
                + ",\"usage\":" + USAGE + "}}");
        assertThat(in.finishReason()).isEqualTo("max_output_tokens");
        assertThat(in.usage()).isEqualTo(EXPECTED);
        assertThat(scanner.skippedOutput).isTrue();
    }

    @Test
    void oddUsageValuesAreLeftToJackson() {
        ChunkInterpreter in = read(completed("\"output\":" + output("x") + ",\"usage\":{\"input_tokens\":\"30\","
                + "\"output_tokens\":9.0,\"input_tokens_details\":{\"cached_tokens\":null}}"));
        assertThat(in.usage()).isEqualTo(new Usage(30, 9, -1, null));
    }

    @Test
    void aBrokenTailIsStillRefused() {
        ChunkInterpreter in = new ChunkInterpreter(MAPPER, scanner, ApiFormat.RESPONSES);
        assertThat(in.onEvent(completed("\"output\":" + output("x") + ",\"usage\":{\"input_tokens\":30,}"), 1))
                .isEqualTo(Outcome.FAILED);
        assertThat(in.failure()).isEqualTo(ErrorClass.PROTOCOL_ERROR);
    }
}
