package io.unibench.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
    void oneByteAtATimeThroughDirectByteBufs() {
        byte[] all = bytes(STREAM);
        List<String> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        for (byte b : all) {
            ByteBuf buf = Unpooled.directBuffer(1).writeByte(b);
            parser.feed(buf);
            assertThat(buf.readerIndex()).isZero(); // the parser does not consume the caller's buffer
            buf.release();
        }
        parser.finish();
        assertThat(events).isEqualTo(EXPECTED);
    }

    /** Epoll reads into direct memory; a read larger than the parser's 64 KiB scratch is parsed in pieces. */
    @Test
    void directBufferLargerThanTheScratchArrayGivesEveryEventOnce() {
        StringBuilder stream = new StringBuilder("XX"); // skipped: the reader index starts after it
        List<String> expected = new ArrayList<>();
        for (int i = 0; stream.length() < 200_000; i++) {
            String value = "{\"i\":" + i + ",\"text\":\"" + "é".repeat(i % 7) + "\"}";
            expected.add(value);
            stream.append("data: ").append(value).append(i % 3 == 0 ? "\r\n\r\n" : "\n\n");
        }
        byte[] all = bytes(stream.toString());
        ByteBuf buf = Unpooled.directBuffer(all.length).writeBytes(all).skipBytes(2);
        List<String> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        parser.feed(buf);
        parser.finish();
        assertThat(buf.readerIndex()).isEqualTo(2);
        assertThat(events).isEqualTo(expected);
        buf.release();
    }

    @Test
    void aListenerFeedingAnotherParserOnTheSameThreadDoesNotShareTheScratchArray() {
        List<String> inner = new ArrayList<>();
        SseParser innerParser = new SseParser(inner::add);
        List<String> outer = new ArrayList<>();
        SseParser outerParser = new SseParser(data -> {
            outer.add(data);
            ByteBuf nested = Unpooled.directBuffer().writeBytes(bytes("data: nested " + data + "\n\n"));
            innerParser.feed(nested);
            nested.release();
        });
        ByteBuf buf = Unpooled.directBuffer().writeBytes(bytes("data: a\n\ndata: b\n\n"));
        outerParser.feed(buf);
        buf.release();
        assertThat(outer).containsExactly("a", "b");
        assertThat(inner).containsExactly("nested a", "nested b");
    }

    @Test
    void heapByteBufWithOffsetIsReadFromItsReaderIndex() {
        ByteBuf buf = Unpooled.wrappedBuffer(bytes("XXXdata: x\n\n"));
        buf.skipBytes(3);
        List<String> events = new ArrayList<>();
        new SseParser(events::add).feed(buf);
        assertThat(events).containsExactly("x");
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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
