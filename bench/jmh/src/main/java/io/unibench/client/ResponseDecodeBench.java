package io.unibench.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * HTTP framing cost per response, without the SSE work: the static target's reply (nginx's headers, a 51,808-byte
 * Content-Length body) in 16 KiB direct reads, through Netty's HttpResponseDecoder (as the client used it, in an
 * EmbeddedChannel pipeline, reading the same headers) and through the client's own ResponseDecoder.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ResponseDecodeBench {
    private byte[] response;
    private EmbeddedChannel netty;
    private long sink;
    private ResponseDecoder ours;
    /** The response cut into 16 KiB reads, made once (allocating direct memory would cost more than decoding). */
    private ByteBuf[] reads;

    @Setup
    public void setup() {
        byte[] body = StaticBody.sse();
        String head = "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Mon, 30 Nov 2026 20:00:00 GMT\r\n"
                + "Content-Type: text/event-stream\r\nContent-Length: " + body.length + "\r\n"
                + "Last-Modified: Mon, 30 Nov 2026 17:00:00 GMT\r\nConnection: keep-alive\r\nETag: \"abc-ca60\"\r\n"
                + "Cache-Control: no-cache\r\nAccept-Ranges: bytes\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        response = new byte[h.length + body.length];
        System.arraycopy(h, 0, response, 0, h.length);
        System.arraycopy(body, 0, response, h.length, body.length);
        int size = 16 * 1024;
        reads = new ByteBuf[(response.length + size - 1) / size];
        for (int i = 0; i < reads.length; i++) {
            int from = i * size;
            int len = Math.min(size, response.length - from);
            reads[i] = Unpooled.directBuffer(len).writeBytes(response, from, len);
        }
        netty = new EmbeddedChannel(new HttpResponseDecoder(new HttpDecoderConfig().setValidateHeaders(false)
                .setMaxChunkSize(1 << 20)), new ChannelInboundHandlerAdapter() {
            @Override public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HttpResponse r) {
                    sink += r.status().code() + (HttpUtil.isKeepAlive(r) ? 1 : 0)
                            + r.headers().get("content-type", "").length();
                }
                if (msg instanceof HttpContent c) sink += c.content().readableBytes();
                if (msg instanceof LastHttpContent) sink++;
                ReferenceCountUtil.release(msg);
            }
        });
        ours = new ResponseDecoder(new ResponseDecoder.Listener() {
            @Override public void onHead(int status, String contentType, boolean keepAlive) {
                sink += status + (keepAlive ? 1 : 0) + contentType.length();
            }
            @Override public void onBody(byte[] bytes, int offset, int length) { sink += length; }
            @Override public void onEnd() { sink++; }
        });
    }

    /** The simulator's and vLLM's reply shape: chunked, one SSE event per HTTP chunk, each chunk its own read. */
    private ByteBuf[] eventReads;
    private ResponseDecoder oursWithSse;

    @Setup
    public void setupEventReads() {
        java.util.List<byte[]> parts = new java.util.ArrayList<>();
        parts.add(("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
                + "transfer-encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        String sse = new String(StaticBody.sse(), StandardCharsets.UTF_8);
        for (String event : sse.split("(?<=\n\n)")) {
            byte[] e = event.getBytes(StandardCharsets.UTF_8);
            byte[] size = (Integer.toHexString(e.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            byte[] chunk = new byte[size.length + e.length + 2];
            System.arraycopy(size, 0, chunk, 0, size.length);
            System.arraycopy(e, 0, chunk, size.length, e.length);
            chunk[chunk.length - 2] = '\r';
            chunk[chunk.length - 1] = '\n';
            parts.add(chunk);
        }
        parts.add("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        eventReads = new ByteBuf[parts.size()];
        for (int i = 0; i < eventReads.length; i++) {
            // from the allocator the client reads into (Netty 4.2: adaptive, direct), as a read would be
            eventReads[i] = io.netty.buffer.ByteBufAllocator.DEFAULT.directBuffer(parts.get(i).length).writeBytes(parts.get(i));
        }
        SseParser parser = new SseParser((byte[] buf, int off, int len) -> sink += len);
        oursWithSse = new ResponseDecoder(new ResponseDecoder.Listener() {
            @Override public void onHead(int status, String contentType, boolean keepAlive) { sink += status; }
            @Override public void onBody(byte[] bytes, int offset, int length) { parser.feed(bytes, offset, length); }
            @Override public void onEnd() { sink++; }
        });
    }

    /** Per SSE event: HTTP framing plus SSE framing of the one-event-per-read reply (results per event). */
    @Benchmark
    @org.openjdk.jmh.annotations.OperationsPerInvocation(StaticBody.EVENTS)
    public long chunkPerReadWithSse() {
        oursWithSse.expectResponse();
        for (ByteBuf read : eventReads) oursWithSse.feed(read);
        return sink;
    }

    @Benchmark
    public long nettyHttpResponseDecoder() {
        for (ByteBuf read : reads) netty.writeInbound(read.retainedDuplicate());
        return sink;
    }

    @Benchmark
    public long responseDecoder() {
        ours.expectResponse();
        for (ByteBuf read : reads) ours.feed(read);
        return sink;
    }
}
