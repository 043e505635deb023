package io.unibench.client;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SseParserTest {

    /** Multi-event stream mixing every line ending, multibyte UTF-8 (2, 3 and 4 bytes), comments and fields. */
    private static final String STREAM = ""
            + ": ping\r\n\r\n"
            + "data: {\"a\":\"héllo\"}\r\n\r\n"
            + "event: message\nid: 7\nretry: 100\ndata:no-space\n\n"
            + "data: first line\r\ndata:  two leading spaces\rdata: 日本語 🎉\r\r"
            + "data: [DONE]\n\n";

    private static final List<String> EXPECTED = List.of(
            "{\"a\":\"héllo\"}",
            "no-space",
            "first line\n two leading spaces\n日本語 🎉",
            "[DONE]");

    @Test
    void parsesAWholeStreamInOneChunk() {
        assertThat(parse(bytes(STREAM))).isEqualTo(EXPECTED);
    }

    @Test
    void splitAtEveryBytePositionGivesTheSameEvents() {
        byte[] all = bytes(STREAM);
        for (int cut = 0; cut <= all.length; cut++) {
            List<String> events = new ArrayList<>();
            SseParser parser = new SseParser(events::add);
            parser.feed(all, 0, cut);
            parser.feed(all, cut, all.length - cut);
            parser.finish();
            assertThat(events).as("split at byte %d", cut).isEqualTo(EXPECTED);
        }
    }


    @Test
    void pendingEventWithoutTrailingBlankLineIsDispatchedAtEnd() {
        List<String> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        parser.feed(bytes("data: one\n\ndata: {\"last\":true}"));
        assertThat(events).containsExactly("one");
        parser.finish();
        assertThat(events).containsExactly("one", "{\"last\":true}");
    }

    @Test
    void commentsAndOtherFieldsAloneDispatchNothing() {
        assertThat(parse(bytes(": keep-alive\n\nevent: ping\n\nid: 3\n\n\n\n"))).isEmpty();
    }

    @Test
    void emptyDataFieldStillMakesAnEvent() {
        assertThat(parse(bytes("data:\n\ndata\n\n"))).containsExactly("", "");
    }

    @Test
    void malformedLinesAreIgnoredNotFatal() {
        // a line without a colon is a field with an empty value; unknown fields are ignored (WHATWG rules)
        assertThat(parse(bytes("garbage line\ndatax: nope\ndata: ok\n\n"))).containsExactly("ok");
    }

    @Test
    void invalidUtf8BecomesReplacementCharacters() {
        byte[] bad = {'d', 'a', 't', 'a', ':', ' ', (byte) 0xC3, '\n', '\n'};
        assertThat(parse(bad)).containsExactly("\uFFFD");
    }

    @Test
    void unboundedLineIsABrokenStream() {
        SseParser parser = new SseParser(data -> { }, 64);
        assertThatThrownBy(() -> parser.feed(bytes("data: " + "x".repeat(100))))
                .isInstanceOf(SseParser.SseException.class);
    }

    /** Whole events as servers send them (handed over in place) mixed with ones the line-by-line path reads. */
    private static final String SERVER_STREAM = ""
            + "data: {\"a\":1}\n\n"
            + "data:{\"b\":2}\n\n"
            + "data: one\ndata: two\n\n"
            + ": ping\n\n"
            + "data:\n\n"
            + "data: \n\n"
            + "data: crlf\r\n\r\n"
            + "data: x" + "y".repeat(40) + "\n\n"
            + "data: [DONE]\n\n";

    @Test
    void serverStyleEventsGiveTheSameEventsWhateverTheSplit() {
        List<String> expected = List.of("{\"a\":1}", "{\"b\":2}", "one\ntwo", "", "", "crlf", "x" + "y".repeat(40), "[DONE]");
        byte[] all = bytes(SERVER_STREAM);
        assertThat(parse(all)).isEqualTo(expected);
        for (int cut = 0; cut <= all.length; cut++) {
            for (int cut2 = cut; cut2 <= all.length; cut2 += 7) {
                List<String> events = new ArrayList<>();
                SseParser parser = new SseParser(events::add);
                parser.feed(all, 0, cut);
                parser.feed(all, cut, cut2 - cut);
                parser.feed(all, cut2, all.length - cut2);
                parser.finish();
                assertThat(events).as("split at bytes %d and %d", cut, cut2).isEqualTo(expected);
            }
        }
    }

    @Test
    void wholeEventLargerThanTheLimitIsABrokenStreamToo() {
        SseParser parser = new SseParser(data -> { }, 64);
        assertThatThrownBy(() -> parser.feed(bytes("data: " + "x".repeat(100) + "\n\n")))
                .isInstanceOf(SseParser.SseException.class);
    }

    @Test
    void lineEndFindsTheFirstCrOrLfLikeAByteLoop() {
        byte[] alphabet = {'\n', '\r', 0, (byte) 0x8A, (byte) 0x8D, 0x0B, 0x0C, 0x09, 0x0E, 'a', (byte) 0xFF, (byte) 0x80};
        java.util.SplittableRandom rng = new java.util.SplittableRandom(7);
        for (int trial = 0; trial < 2000; trial++) {
            byte[] b = new byte[1 + rng.nextInt(40)];
            for (int i = 0; i < b.length; i++) {
                // mostly bytes that are not line ends, so that matches land anywhere in a word
                b[i] = rng.nextInt(6) == 0 ? alphabet[rng.nextInt(alphabet.length)] : alphabet[2 + rng.nextInt(alphabet.length - 2)];
            }
            int from = rng.nextInt(b.length + 1);
            int end = from + rng.nextInt(b.length - from + 1);
            int expected = from;
            while (expected < end && b[expected] != '\n' && b[expected] != '\r') expected++;
            assertThat(SseParser.lineEnd(b, from, end)).as("trial %d", trial).isEqualTo(expected);
        }
    }

    private static List<String> parse(byte[] input) {
        List<String> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        parser.feed(input);
        parser.finish();
        return events;
    }

    @Test
    void crlfSplitBetweenChunksIsOneLineEnd() {
        List<String> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        parser.feed(bytes("data: a\r"));
        parser.feed(bytes("\ndata: b\r"));
        parser.feed(bytes("\n\r"));
        parser.feed(bytes("\n"));
        assertThat(events).containsExactly("a\nb");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
