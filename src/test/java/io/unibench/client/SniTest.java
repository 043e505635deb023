package io.unibench.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.Mapping;
import io.unibench.net.ServerCertificate;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client's TLS context sends the host name as SNI, which virtual-hosted providers and CDNs need to pick the
 * certificate. The handler is made as {@link LlmClient} makes it, with a provider-like dotted name for a server on
 * loopback (SNI carries only names with a dot, never IP addresses nor {@code localhost}: JDK and BoringSSL alike).
 */
class SniTest {
    @Test
    void theHostNameGoesOutAsSni() throws Exception {
        ServerCertificate cert = ServerCertificate.selfSigned(List.of("dns:api.example.com"));
        SslContext serverContext = cert.serverContext();
        BlockingQueue<String> names = new LinkedBlockingQueue<>();
        Mapping<String, SslContext> recordName = host -> {
            names.add(String.valueOf(host));
            return serverContext;
        };
        SslContext client = LlmClient.sslContext(new TlsOptions(cert.chain(), false));
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new SniHandler(recordName), new CloseOnError());
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            c.pipeline().addLast(client.newHandler(c.alloc(), "api.example.com", port), new CloseOnError());
                        }
                    }).connect("127.0.0.1", port).sync().channel();
            assertThat(names.poll(10, TimeUnit.SECONDS)).isEqualTo("api.example.com");
            // and the host name verification accepts the certificate for that name
            assertThat(ch.pipeline().get(SslHandler.class).handshakeFuture().await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(ch.pipeline().get(SslHandler.class).handshakeFuture().isSuccess()).isTrue();
            ch.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }

    /** Ends the pipelines: the channels carry a handshake and nothing else. */
    private static final class CloseOnError extends ChannelInboundHandlerAdapter {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
