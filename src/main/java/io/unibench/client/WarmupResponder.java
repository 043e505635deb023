package io.unibench.client;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.unibench.net.ServerCertificate;
import io.unibench.net.Transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link ClientWarmup}'s loopback server: on 127.0.0.1 inside this process, it answers every HTTP/1.1 request with
 * one canned reply in the client's API format (a few token chunks, the finish, the usage, the end), so the client's
 * whole path (connection, write, response framing, SSE parsing, chunk scanning) runs as against a real server. Its
 * replies go in fours, two per connection: on one, a reply framed by {@code Content-Length}, then one that says
 * {@code Connection: close} and closes; on the next, two chunked replies (as vLLM, SGLang, llama.cpp and hosted APIs
 * stream), after the second of which the responder closes although its headers said nothing (as llama.cpp's server
 * does after every reply; a chat stream then in its shapes: the role chunk, {@code choices} first, {@code timings}
 * and the usage's {@code prompt_tokens_details} at the end). So every second request opens a connection: the reused
 * and the new-connection path are run, the client's spare socket, both framings, and its pool's rule for a server
 * that closes after a fixed number of replies (learned here as two, which every connection keeps). With a certificate it speaks TLS (the client's engine, ALPN http/1.1, as
 * {@link ServerCertificate#serverContext()}), so a client of an https target runs its handshake and TLS reads and
 * writes too. Its handshakes are full ones: Netty's BoringSSL server sends no TLS 1.3 session ticket (checked with
 * {@code openssl s_client -sess_out}), and the JDK's server, which does, made the warm-up 50–70 % slower under C1
 * (bench/HISTORY.md, "TLS in the client warm-up"). A run against a server that resumes sessions (nginx) still takes
 * its session-resumption path cold. It reads nothing of the request but its length.
 */
final class WarmupResponder implements AutoCloseable {
    /** Token chunks per streamed reply: enough for the per-chunk code, which compiles within a few replies. */
    private static final int TOKENS = 16;

    private final EventLoopGroup group;
    private final Channel server;
    private final byte[] keepAlive;
    private final byte[] closing;
    private final byte[] chunked;
    private final AtomicInteger served = new AtomicInteger();
    private final AtomicInteger handshakes = new AtomicInteger();

    /** @param tls the certificate to serve TLS with; {@code null}: plain HTTP */
    WarmupResponder(ApiFormat api, boolean stream, ServerCertificate tls) throws InterruptedException {
        boolean sse = stream && api.generates();
        byte[] body = (sse ? sse(api) : json(api)).getBytes(StandardCharsets.UTF_8);
        String type = sse ? "text/event-stream" : "application/json";
        this.keepAlive = reply(type, body, false);
        this.closing = reply(type, body, true);
        this.chunked = chunked(type, sse ? api == ApiFormat.CHAT ? llamaChat() : sse(api) : json(api), sse);
        SslContext ssl = tls == null ? null : tls.serverContext();
        Transport transport = Transport.best();
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("unibench-warmup", true),
                transport.ioHandlerFactory());
        try {
            this.server = new ServerBootstrap().group(group).channel(transport.serverSocketChannel())
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            if (ssl != null) {
                                SslHandler handler = ssl.newHandler(ch.alloc());
                                handler.handshakeFuture().addListener(f -> {
                                    if (f.isSuccess()) handshakes.incrementAndGet();
                                });
                                ch.pipeline().addLast(handler);
                            }
                            ch.pipeline().addLast(new Answer());
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        } catch (RuntimeException | InterruptedException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** The port it listens on (127.0.0.1). */
    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Requests answered so far. */
    int served() {
        return served.get();
    }

    /** TLS handshakes completed so far (0 over plain HTTP). */
    int handshakes() {
        return handshakes.get();
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }

    /** Reads one request (head to its blank line, then content-length bytes) and answers it; HTTP/1.1 in order. */
    private final class Answer extends ChannelInboundHandlerAdapter {
        private ByteBuf pending;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            if (pending == null) {
                pending = in;
            } else {
                pending = Unpooled.wrappedBuffer(pending, in);
            }
            int length;
            while ((length = requestLength(pending)) > 0 && pending.readableBytes() >= length) {
                pending.skipBytes(length);
                int kind = served.incrementAndGet() % 4; // 1 kept, 2 closing; 3 chunked, 0 chunked then closed
                ByteBuf reply = Unpooled.wrappedBuffer(kind == 1 ? keepAlive : kind == 2 ? closing : chunked);
                if (kind == 2 || kind == 0) {
                    ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
                    break;
                }
                ctx.writeAndFlush(reply, ctx.voidPromise());
            }
            if (!pending.isReadable()) {
                pending.release();
                pending = null;
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (pending != null) {
                pending.release();
                pending = null;
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // the client sees a reset: its warm-up request fails, the warm-up stops
        }
    }

    /** Bytes of the first request in {@code buf} (head + body), or 0 while its head is incomplete. */
    static int requestLength(ByteBuf buf) {
        int start = buf.readerIndex();
        int end = buf.writerIndex();
        for (int i = start; i + 3 < end; i++) {
            if (buf.getByte(i) == '\r' && buf.getByte(i + 1) == '\n' && buf.getByte(i + 2) == '\r'
                    && buf.getByte(i + 3) == '\n') {
                String head = buf.toString(start, i - start, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
                int at = head.indexOf("\r\ncontent-length:");
                long body = 0;
                if (at >= 0) {
                    int from = at + "\r\ncontent-length:".length();
                    int to = head.indexOf('\r', from);
                    body = Long.parseLong(head.substring(from, to < 0 ? head.length() : to).trim());
                }
                return Math.toIntExact(i + 4 - start + body);
            }
        }
        return 0;
    }

    private static byte[] reply(String type, byte[] body, boolean close) {
        String head = "HTTP/1.1 200 OK\r\ncontent-type: " + type + "\r\ncontent-length: " + body.length + "\r\n"
                + (close ? "connection: close\r\n" : "") + "\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    /**
     * A chunked reply whose headers do not say it closes: each SSE event its own chunk ({@code sse}), else the body
     * one chunk.
     */
    private static byte[] chunked(String type, String body, boolean sse) {
        StringBuilder s = new StringBuilder("HTTP/1.1 200 OK\r\ncontent-type: ").append(type)
                .append("\r\ntransfer-encoding: chunked\r\nkeep-alive: timeout=5, max=100\r\n\r\n");
        for (String part : sse ? body.split("(?<=\n\n)") : new String[] {body}) {
            s.append(Integer.toHexString(part.getBytes(StandardCharsets.UTF_8).length)).append("\r\n").append(part)
                    .append("\r\n");
        }
        return s.append("0\r\n\r\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A chat stream in llama.cpp's server's shapes (its members' order, the role chunk, timings and usage details). */
    private static String llamaChat() {
        String tail = "],\"created\":0,\"id\":\"chatcmpl-w\",\"model\":\"m\",\"system_fingerprint\":\"b0\","
                + "\"object\":\"chat.completion.chunk\"";
        StringBuilder s = new StringBuilder("data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{"
                + "\"role\":\"assistant\",\"content\":null}}" + tail + "}\n\n");
        for (int i = 0; i < TOKENS; i++) {
            s.append("data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"content\":\"w")
                    .append(i).append(" \"}}").append(tail).append("}\n\n");
        }
        s.append("data: {\"choices\":[{\"finish_reason\":\"length\",\"index\":0,\"delta\":{}}").append(tail)
                .append("}\n\n");
        s.append("data: {\"choices\":[").append(tail).append(",\"usage\":{\"completion_tokens\":").append(TOKENS)
                .append(",\"prompt_tokens\":9,\"total_tokens\":").append(9 + TOKENS)
                .append(",\"prompt_tokens_details\":{\"cached_tokens\":0}},\"timings\":{\"cache_n\":0,\"prompt_n\":9,")
                .append("\"prompt_ms\":1.5,\"prompt_per_token_ms\":0.16,\"prompt_per_second\":6000.0,\"predicted_n\":")
                .append(TOKENS).append(",\"predicted_ms\":8.25,\"predicted_per_token_ms\":0.5,")
                .append("\"predicted_per_second\":1939.4}}\n\n");
        return s.append("data: [DONE]\n\n").toString();
    }

    /** The reply streamed as {@code api}'s server streams it (the shapes of bench/static-target/make-bodies.py). */
    private static String sse(ApiFormat api) {
        StringBuilder s = new StringBuilder();
        switch (api) {
            case RESPONSES -> {
                s.append(event("response.created", "{\"type\":\"response.created\",\"sequence_number\":0,"
                        + "\"response\":{\"id\":\"resp_w\",\"status\":\"in_progress\",\"output\":[]}}"));
                for (int i = 0; i < TOKENS; i++) {
                    s.append(event("response.output_text.delta", "{\"type\":\"response.output_text.delta\","
                            + "\"sequence_number\":" + (i + 1) + ",\"item_id\":\"msg_w\",\"output_index\":0,"
                            + "\"content_index\":0,\"delta\":\"w" + i + " \"}"));
                }
                s.append(event("response.completed", "{\"type\":\"response.completed\",\"sequence_number\":"
                        + (TOKENS + 1) + ",\"response\":{\"id\":\"resp_w\",\"status\":\"completed\",\"output\":[],"
                        + "\"usage\":{\"input_tokens\":9,\"output_tokens\":" + TOKENS + ",\"total_tokens\":"
                        + (9 + TOKENS) + ",\"input_tokens_details\":{\"cached_tokens\":0}}}}"));
            }
            case ANTHROPIC -> {
                s.append(event("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_w\","
                        + "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":9,"
                        + "\"output_tokens\":1}}}"));
                s.append(event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"));
                for (int i = 0; i < TOKENS; i++) {
                    s.append(event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                            + "\"delta\":{\"type\":\"text_delta\",\"text\":\"w" + i + " \"}}"));
                }
                s.append(event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"));
                s.append(event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
                        + "\"max_tokens\"},\"usage\":{\"output_tokens\":" + TOKENS + "}}"));
                s.append(event("message_stop", "{\"type\":\"message_stop\"}"));
            }
            default -> { // chat and completions
                boolean chat = api == ApiFormat.CHAT;
                String head = "data: {\"id\":\"w\",\"object\":\"" + (chat ? "chat.completion.chunk" : "text_completion")
                        + "\",\"created\":0,\"model\":\"m\",\"choices\":";
                if (chat) {
                    s.append(head).append("[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                            + "\"finish_reason\":null}]}\n\n");
                }
                for (int i = 0; i < TOKENS; i++) {
                    s.append(head).append("[{\"index\":0,").append(chat ? "\"delta\":{\"content\":\"w" + i + " \"}"
                            : "\"text\":\"w" + i + " \"").append(",\"finish_reason\":null}]}\n\n");
                }
                s.append(head).append("[{\"index\":0,").append(chat ? "\"delta\":{}" : "\"text\":\"\"")
                        .append(",\"finish_reason\":\"length\"}]}\n\n");
                s.append(head).append("[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":").append(TOKENS)
                        .append(",\"total_tokens\":").append(9 + TOKENS).append("}}\n\n");
                s.append("data: [DONE]\n\n");
            }
        }
        return s.toString();
    }

    private static String event(String name, String data) {
        return "event: " + name + "\ndata: " + data + "\n\n";
    }

    /** The whole reply as one JSON body: a non-streamed request, an embedding, a rerank. */
    private static String json(ApiFormat api) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < TOKENS; i++) text.append('w').append(i).append(' ');
        return switch (api) {
            case CHAT -> "{\"id\":\"w\",\"object\":\"chat.completion\",\"created\":0,\"model\":\"m\",\"choices\":[{"
                    + "\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + text + "\"},"
                    + "\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":" + TOKENS
                    + ",\"total_tokens\":" + (9 + TOKENS) + "}}";
            case COMPLETIONS -> "{\"id\":\"w\",\"object\":\"text_completion\",\"created\":0,\"model\":\"m\","
                    + "\"choices\":[{\"index\":0,\"text\":\"" + text + "\",\"finish_reason\":\"length\"}],"
                    + "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":" + TOKENS + ",\"total_tokens\":"
                    + (9 + TOKENS) + "}}";
            case RESPONSES -> "{\"id\":\"resp_w\",\"object\":\"response\",\"status\":\"completed\",\"output\":[{"
                    + "\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\""
                    + text + "\"}]}],\"usage\":{\"input_tokens\":9,\"output_tokens\":" + TOKENS + "}}";
            case ANTHROPIC -> "{\"id\":\"msg_w\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{"
                    + "\"type\":\"text\",\"text\":\"" + text + "\"}],\"stop_reason\":\"max_tokens\","
                    + "\"usage\":{\"input_tokens\":9,\"output_tokens\":" + TOKENS + "}}";
            case EMBEDDING -> "{\"object\":\"list\",\"data\":[{\"object\":\"embedding\",\"index\":0,"
                    + "\"embedding\":[0.5,0.25]}],\"model\":\"m\",\"usage\":{\"prompt_tokens\":9,\"total_tokens\":9}}";
            case RERANK -> "{\"results\":[{\"index\":0,\"relevance_score\":0.5}],\"usage\":{\"total_tokens\":9}}";
        };
    }
}
