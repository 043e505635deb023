package io.unibench.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestHeadTest {

    private static final byte[] BODY = "{\"model\":\"m\",\"stream\":true}".getBytes(StandardCharsets.UTF_8);

    @Test
    void sameBytesAsNettysEncoderWithTheHeadersTheClientUsedToSet() {
        List<Map<String, String>> configs = List.of(
                Map.of(),
                Map.of("Authorization", "Bearer sk-1"),
                // configured headers replace ours, whatever their case; framing headers never pass
                orderedMap("Accept", "*/*", "HOST", "example.org", "x-request-id", "mine", "Content-Length", "7",
                        "Transfer-Encoding", "chunked", "User-Agent", "other", "X-Key", "a", "x-key", "b"));
        for (Map<String, String> configured : configs) {
            RequestHead head = new RequestHead("/v1/chat/completions?x=1", "127.0.0.1:8000", "unibench", configured);
            for (boolean stream : new boolean[] {true, false}) {
                for (String id : new String[] {"run-7", null}) {
                    String ours = text(head.encode(ByteBufAllocator.DEFAULT, stream, id, BODY));
                    String netty = nettyEncoded(configured, stream, id);
                    assertThat(lines(ours)).as("%s stream=%s id=%s", configured, stream, id)
                            .containsExactlyInAnyOrderElementsOf(lines(netty));
                    assertThat(ours.substring(0, ours.indexOf("\r\n")))
                            .isEqualTo("POST /v1/chat/completions?x=1 HTTP/1.1");
                    assertThat(ours).endsWith("\r\n\r\n" + new String(BODY, StandardCharsets.UTF_8));
                }
            }
        }
    }

    @Test
    void refusesARequestIdThatWouldBreakTheHead() {
        RequestHead head = new RequestHead("/", "h", "unibench", Map.of());
        assertThatThrownBy(() -> head.encode(ByteBufAllocator.DEFAULT, true, "a\r\nEvil: 1", BODY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(text(head.encode(ByteBufAllocator.DEFAULT, true, "tab\tok", BODY))).contains("X-Request-Id: tab\tok\r\n");
    }

    @Test
    void contentLengthOfLargeAndEmptyBodies() {
        RequestHead head = new RequestHead("/", "h", "unibench", Map.of());
        assertThat(text(head.encode(ByteBufAllocator.DEFAULT, false, null, new byte[0]))).contains("content-length: 0\r\n\r\n");
        assertThat(text(head.encode(ByteBufAllocator.DEFAULT, false, null, new byte[1234567])))
                .contains("content-length: 1234567\r\n\r\n");
    }

    /** What LlmClient sent through HttpClientCodec before RequestHead (its former fillHeaders). */
    private static String nettyEncoded(Map<String, String> configured, boolean stream, String requestId) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                "/v1/chat/completions?x=1", Unpooled.wrappedBuffer(BODY));
        var headers = request.headers();
        headers.set(HttpHeaderNames.HOST, "127.0.0.1:8000");
        headers.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        headers.set(HttpHeaderNames.ACCEPT, stream ? HttpHeaderValues.TEXT_EVENT_STREAM : HttpHeaderValues.APPLICATION_JSON);
        headers.set(HttpHeaderNames.USER_AGENT, "unibench");
        if (requestId != null) {
            headers.set("X-Request-Id", requestId);
        }
        configured.forEach(headers::set);
        headers.set(HttpHeaderNames.CONTENT_LENGTH, BODY.length);
        headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
        EmbeddedChannel ch = new EmbeddedChannel(new HttpRequestEncoder());
        ch.writeOutbound(request);
        StringBuilder out = new StringBuilder();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            out.append(text(b));
        }
        ch.finishAndReleaseAll();
        return out.toString();
    }

    /** Header lines with lower-case names (HTTP names are case-insensitive); the request line first. */
    private static List<String> lines(String request) {
        String head = request.substring(0, request.indexOf("\r\n\r\n"));
        List<String> out = new ArrayList<>();
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            out.add(colon < 0 || line.startsWith("POST ") ? line
                    : line.substring(0, colon).toLowerCase(Locale.ROOT) + line.substring(colon));
        }
        return out;
    }

    private static String text(ByteBuf b) {
        try {
            return b.toString(StandardCharsets.ISO_8859_1);
        } finally {
            b.release();
        }
    }

    private static Map<String, String> orderedMap(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }
}
