package io.unibench.client;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslClosedEngineException;
import io.netty.handler.ssl.SslHandler;
import io.unibench.net.ServerCertificate;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server that ends a keep-alive connection's TLS session (its close_notify) costs no request: the connection leaves
 * the pool when the close_notify arrives, though the server keeps its socket open, and a request that was handed it
 * just before is sent again on a new one as for any stale connection. (The client warm-up's responder closes after
 * every second reply: its fifth request failed with "SSLEngine closed already" about once in 500 runs on a loaded
 * machine, when the close_notify was read before the write and the FIN after it.) Run on BoringSSL and again on the
 * JDK's TLS: pom.xml.
 */
class TlsSessionEndTest {
    private static final byte[] BODY = ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"stream\":false,\"max_tokens\":1}").getBytes(StandardCharsets.UTF_8);
    private static final byte[] REPLY = reply();

    @Test
    void aConnectionWhoseTlsSessionTheServerEndedIsDroppedAndTheNextRequestGoesOnANewOne() throws Exception {
        try (SessionEndingServer server = new SessionEndingServer();
             LlmClient client = client(server)) {
            ClientResult first = client.send(BODY, false, "1").join();
            assertThat(first.success()).as(first.errorMessage()).isTrue();
            // the server sent its close_notify after the reply and kept its socket: the client closes the connection
            server.firstClosed.get(10, TimeUnit.SECONDS);

            ClientResult second = client.send(BODY, false, "2").join();
            assertThat(second.success()).as(second.errorMessage()).isTrue();
            assertThat(second.wire().newConnection()).isTrue();
            assertThat(second.wire().retriedStaleConnection()).isFalse();
            assertThat(server.accepted).hasValue(2);
        }
    }

    @Test
    void aWriteOnAConnectionWhoseTlsSessionEndedIsAStaleConnectionNotATlsFailure() {
        SslClosedEngineException closed = new SslClosedEngineException("SSLEngine closed already");
        assertThat(ErrorMapping.classify(closed)).isEqualTo(ErrorClass.CONNECTION_RESET);
        assertThat(ErrorMapping.message(closed)).contains("close_notify");
    }

    private static LlmClient client(SessionEndingServer server) {
        return new LlmClient(new ClientConfig(URI.create("https://127.0.0.1:" + server.port() + "/v1/chat/completions"),
                Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(1), 1, false,
                new TlsOptions(server.certificate.chain(), false), ApiFormat.CHAT));
    }

    private static byte[] reply() {
        byte[] body = ("{\"id\":\"c\",\"object\":\"chat.completion\",\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}")
                .getBytes(StandardCharsets.UTF_8);
        byte[] head = ("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: " + body.length
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    /**
     * Answers every request with a keep-alive reply, then sends close_notify and leaves its socket open (as a server
     * ending an idle connection's session before its FIN); says when the first connection closed.
     */
    private static final class SessionEndingServer implements AutoCloseable {
        final ServerCertificate certificate = ServerCertificate.selfSigned(ServerCertificate.LOOPBACK_NAMES);
        final AtomicInteger accepted = new AtomicInteger();
        final CompletableFuture<Void> firstClosed = new CompletableFuture<>();
        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        private final Channel server;

        SessionEndingServer() throws InterruptedException {
            var ssl = certificate.serverContext();
            server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            int n = accepted.incrementAndGet();
                            SslHandler tls = ssl.newHandler(ch.alloc());
                            ch.pipeline().addLast(tls, new ChannelInboundHandlerAdapter() {
                                private ByteBuf pending = Unpooled.EMPTY_BUFFER;

                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    pending = Unpooled.wrappedBuffer(pending, (ByteBuf) msg);
                                    int length = WarmupResponder.requestLength(pending);
                                    if (length > 0 && pending.readableBytes() >= length) {
                                        pending.skipBytes(length);
                                        ctx.writeAndFlush(Unpooled.wrappedBuffer(REPLY))
                                                .addListener(f -> tls.closeOutbound()); // close_notify, no FIN
                                    }
                                }

                                @Override
                                public void channelInactive(ChannelHandlerContext ctx) {
                                    pending.release();
                                    if (n == 1) firstClosed.complete(null);
                                }
                            });
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        }

        int port() {
            return ((InetSocketAddress) server.localAddress()).getPort();
        }

        @Override
        public void close() {
            server.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }
}
