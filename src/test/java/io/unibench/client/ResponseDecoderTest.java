package io.unibench.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResponseDecoderTest {

    /** Everything a decoder reported, in order, as text: "head 200 text/event-stream keep-alive", body, "end". */
    private static final class Recorder implements ResponseDecoder.Listener {
        final List<String> parts = new ArrayList<>();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();

        @Override public void onHead(int status, String contentType, boolean keepAlive, String retryAfter) {
            parts.add("head " + status + " " + contentType + " " + (keepAlive ? "keep-alive" : "close"));
        }

        @Override public void onBody(byte[] bytes, int offset, int length) {
            body.write(bytes, offset, length);
        }

        @Override public void onEnd() {
            parts.add("end " + body.toString(StandardCharsets.UTF_8));
            body.reset();
        }
    }

    private static final String CHUNKED = "HTTP/1.1 200 OK\r\n"
            + "Content-Type: text/event-stream; charset=utf-8\r\n"
            + "transfer-encoding: chunked\r\n"
            + "X-Other: a:b\r\n"
            + "\r\n"
            + "7\r\ndata: a\r\n"
            + "0000B;name=value\r\n\n\ndata: bc\n\r\n"
            + "3\n\n\n\n\n" // bare LF line ends are accepted too
            + "0\r\n"
            + "X-Trailer: t\r\n"
            + "\r\n";

    @Test
    void chunkedBodyIsDecodedWhereverTheReadsSplitIt() {
        byte[] all = bytes(CHUNKED);
        for (int cut = 0; cut <= all.length; cut++) {
            for (int cut2 = cut; cut2 <= all.length; cut2 += 7) {
                Recorder r = decode(all, cut, cut2);
                assertThat(r.parts).as("split at %d and %d", cut, cut2).containsExactly(
                        "head 200 text/event-stream; charset=utf-8 keep-alive", "end data: a\n\ndata: bc\n\n\n\n");
            }
        }
    }

    @Test
    void contentLengthBodyEndsAtItsLengthWhereverTheReadsSplitIt() {
        byte[] all = bytes("HTTP/1.1 200 OK\nContent-Length: 11\nContent-Type: application/json\n\n{\"a\":\"bcd\"}");
        for (int cut = 0; cut <= all.length; cut++) {
            assertThat(decode(all, cut, cut).parts).as("split at %d", cut)
                    .containsExactly("head 200 application/json keep-alive", "end {\"a\":\"bcd\"}");
        }
    }

    /** The head is looked for 512 bytes at a time: its blank line may fall on, before or after a step's edge. */
    @Test
    void headsOfEveryLengthAroundTheCopyStepsEndWhereTheirBlankLineIs() {
        for (int headLength = 490; headLength <= 1060; headLength++) {
            String start = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Pad: ";
            String pad = "p".repeat(headLength - start.length() - 4);
            byte[] all = bytes(start + pad + "\r\n\r\nhello");
            assertThat(decode(all, 0, 0).parts).as("head of %d bytes", headLength)
                    .containsExactly("head 200  keep-alive", "end hello");
            assertThat(decode(all, headLength - 1, headLength - 1).parts)
                    .as("head of %d bytes, read cut before its last LF", headLength)
                    .containsExactly("head 200  keep-alive", "end hello");
        }
    }

    @Test
    void bodyWithoutLengthEndsWhenTheConnectionCloses() {
        Recorder r = new Recorder();
        ResponseDecoder d = armed(r);
        d.feed(buf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: x\n\n"));
        assertThat(d.endsAtClose()).isTrue();
        assertThat(r.parts).containsExactly("head 200 text/event-stream close");
        d.inputClosed();
        assertThat(r.parts).containsExactly("head 200 text/event-stream close", "end data: x\n\n");
    }

    @Test
    void aCutBodyWithALengthDoesNotEndWhenTheConnectionCloses() {
        Recorder r = new Recorder();
        ResponseDecoder d = armed(r);
        d.feed(buf("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"));
        d.inputClosed();
        assertThat(r.parts).containsExactly("head 200  keep-alive");
    }

    @Test
    void interimResponsesAreSkipped() {
        Recorder r = decode(bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                + "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"), 0, 0);
        assertThat(r.parts).containsExactly("head 201  keep-alive", "end ok");
    }

    @Test
    void noContentAndNotModifiedHaveNoBody() {
        assertThat(decode(bytes("HTTP/1.1 204 No Content\r\n\r\n"), 0, 0).parts)
                .containsExactly("head 204  keep-alive", "end ");
        assertThat(decode(bytes("HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n"), 0, 0).parts)
                .containsExactly("head 304  keep-alive", "end ");
        assertThat(decode(bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), 0, 0).parts)
                .containsExactly("head 200  keep-alive", "end ");
    }

    @Test
    void keepAliveFollowsTheVersionAndTheConnectionHeader() {
        assertThat(decode(bytes("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"), 0, 0).parts.get(0))
                .isEqualTo("head 200  close");
        assertThat(decode(bytes("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n"), 0, 0)
                .parts.get(0)).isEqualTo("head 200  keep-alive");
        assertThat(decode(bytes("HTTP/1.1 200 OK\r\nConnection: upgrade, close\r\nContent-Length: 0\r\n\r\n"), 0, 0)
                .parts.get(0)).isEqualTo("head 200  close");
    }

    @Test
    void transferEncodingOverridesContentLength() {
        Recorder r = decode(bytes("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n0\r\n\r\n"), 0, 0);
        assertThat(r.parts).containsExactly("head 200  keep-alive", "end hello");
    }

    /** The limit holds whether the line comes in one read (parsed in place) or in several (collected). */
    @Test
    void aChunkSizeLineLongerThanTheLimitIsRefusedWhereverTheReadsSplitIt() {
        byte[] all = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;ext=" + "x".repeat(5000)
                + "\r\na\r\n0\r\n\r\n");
        for (int cut : new int[] {all.length, 60, 3000}) {
            assertThatThrownBy(() -> decode(all, cut, cut)).as("split at %d", cut)
                    .isInstanceOf(ResponseDecoder.MalformedResponseException.class)
                    .hasMessage("chunk-size line larger than 4096 bytes");
        }
        byte[] fits = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;ext=" + "x".repeat(4000)
                + "\r\na\r\n0\r\n\r\n");
        assertThat(decode(fits, fits.length, fits.length).parts).containsExactly("head 200  keep-alive", "end a");
    }

    @Test
    void responsesFollowOneAnotherOnTheSameConnection() {
        Recorder r = new Recorder();
        ResponseDecoder d = armed(r);
        for (int i = 0; i < 3; i++) {
            d.feed(buf("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n" + i));
            d.expectResponse();
        }
        assertThat(r.parts).containsExactly("head 200  keep-alive", "end 0", "head 200  keep-alive", "end 1",
                "head 200  keep-alive", "end 2");
    }

    @Test
    void directBuffersAreReadFromTheirReaderIndex() {
        Recorder r = new Recorder();
        ByteBuf direct = Unpooled.directBuffer().writeBytes(bytes("XXHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"));
        direct.skipBytes(2);
        armed(r).feed(direct);
        assertThat(direct.readerIndex()).isEqualTo(2);
        direct.release();
        assertThat(r.parts).containsExactly("head 200  keep-alive", "end hi");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "HTTP/2 200\r\n\r\n|invalid status line \"HTTP/2 200\"",
            "HTTP/1.1 20 OK\r\n\r\n|invalid status line \"HTTP/1.1 20 OK\"",
            "HTTP/1.1 200OK\r\n\r\n|invalid status line \"HTTP/1.1 200OK\"",
            "SSH-2.0-OpenSSH\r\n\r\n|invalid status line \"SSH-2.0-OpenSSH\"",
            "HTTP/1.1 101 Switching Protocols\r\n\r\n|unexpected 101 Switching Protocols",
            "HTTP/1.1 200 OK\r\nno colon\r\n\r\n|invalid header line \"no colon\"",
            "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n|invalid Content-Length \"-1\"",
            "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n|invalid Content-Length \"1x\"",
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n|conflicting Content-Length values 2 and 3",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n|invalid chunk size line \"zz\"",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n|invalid chunk size line \"\"",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n|chunk data longer than its size",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n|chunk size too large",
    })
    void malformedResponsesAreRefusedWithTheReason(String caseText) {
        String[] parts = caseText.split("\\|");
        ResponseDecoder d = armed(new Recorder());
        assertThatThrownBy(() -> d.feed(buf(parts[0])))
                .isInstanceOf(ResponseDecoder.MalformedResponseException.class)
                .hasMessage(parts[1]);
        // after a refusal nothing more is read as part of that response
        assertThatThrownBy(() -> d.feed(buf("x"))).hasMessage("bytes arrived when no response was expected");
    }

    @Test
    void bytesAfterTheEndOfAResponseAreRefused() {
        ResponseDecoder d = armed(new Recorder());
        assertThatThrownBy(() -> d.feed(buf("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab")))
                .hasMessage("bytes arrived when no response was expected");
    }

    @Test
    void aHeadLargerThanTheLimitIsRefusedWithoutBufferingMore() {
        ResponseDecoder d = armed(new Recorder());
        d.feed(buf("HTTP/1.1 200 OK\r\n"));
        String field = "X-Big: " + "a".repeat(1000) + "\r\n";
        assertThatThrownBy(() -> {
            for (int i = 0; i < 100; i++) d.feed(buf(field)); // 100 KB of headers, never a blank line
        }).hasMessage("response head larger than " + ResponseDecoder.MAX_HEAD_BYTES + " bytes");
    }

    /** Decodes {@code all} fed as up to three reads, cut at {@code cut} and {@code cut2}; then closes the input. */
    private static Recorder decode(byte[] all, int cut, int cut2) {
        Recorder r = new Recorder();
        ResponseDecoder d = armed(r);
        int[] bounds = {0, cut, cut2, all.length};
        for (int i = 0; i < 3; i++) {
            if (bounds[i + 1] > bounds[i]) {
                // heap reads are decoded in place (from an array offset), direct ones through the copy; both, by turns
                int length = bounds[i + 1] - bounds[i];
                ByteBuf b = cut % 2 == 0 ? Unpooled.wrappedBuffer(all, bounds[i], length)
                        : Unpooled.directBuffer(length).writeBytes(all, bounds[i], length);
                try {
                    d.feed(b);
                } finally {
                    b.release(); // a malformed read throws: the caller still owns (and releases) the buffer
                }
            }
        }
        return r;
    }

    private static ResponseDecoder armed(Recorder r) {
        ResponseDecoder d = new ResponseDecoder(r);
        d.expectResponse();
        return d;
    }

    private static ByteBuf buf(String s) {
        return Unpooled.wrappedBuffer(bytes(s));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
