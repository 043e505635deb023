package io.unibench.client;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpObject;
import io.netty.util.ReferenceCountUtil;

/**
 * Last handler of every pooled channel: routes decoded response parts to the request currently using the
 * channel. Also holds the arrival time of the latest raw read, stamped by {@link ArrivalStamp} at the head of
 * the pipeline before TLS and HTTP decoding, so every event decoded from one read carries the moment its bytes
 * arrived. Only touched on the channel's event loop.
 */
final class ResponseHandler extends ChannelInboundHandlerAdapter {

    private final ConnectTimer timer;
    /** The connection's chunk scanner: its template carries over from one reply to the next on this connection. */
    private final ChunkScanner scanner = new ChunkScanner();
    private Exchange current;
    private long arrivalNanos = ClientResult.ABSENT;

    ResponseHandler(ConnectTimer timer) {
        this.timer = timer;
    }

    /** The connection's timings if the caller is its first user; {@code null} on a reused connection. */
    ConnectTimer takeFreshConnection() {
        return timer.takeIfFresh();
    }

    ChunkScanner scanner() {
        return scanner;
    }

    void attach(Exchange exchange) {
        current = exchange;
    }

    void detach(Exchange exchange) {
        if (current == exchange) {
            current = null;
        }
    }

    long arrivalNanos() {
        return arrivalNanos;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Exchange exchange = current;
        if (exchange == null || !(msg instanceof HttpObject http)) {
            // bytes nobody asked for: the connection's state is unknown, so it cannot be reused
            ReferenceCountUtil.release(msg);
            ctx.close();
            return;
        }
        exchange.onResponsePart(http, arrivalNanos);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Exchange exchange = current;
        if (exchange != null) {
            exchange.onConnectionClosed();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Exchange exchange = current;
        if (exchange != null) {
            exchange.onChannelError(cause);
        }
        ctx.close();
    }

    /** First handler of the pipeline: notes when raw bytes arrive. */
    static final class ArrivalStamp extends ChannelInboundHandlerAdapter {
        private final ResponseHandler target;

        ArrivalStamp(ResponseHandler target) {
            this.target = target;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            target.arrivalNanos = System.nanoTime();
            ctx.fireChannelRead(msg);
        }
    }
}
