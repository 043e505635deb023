package io.unibench.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslCloseCompletionEvent;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.unibench.Moments;

/**
 * Last handler of every pooled channel: decodes the response bytes ({@link ResponseDecoder}) and routes the parts
 * to the request currently using the channel. Also holds the arrival time of the latest raw read, stamped by
 * {@link ArrivalStamp} at the head of the pipeline before TLS and HTTP decoding, so every event decoded from one read
 * carries the moment its bytes arrived. Only touched on the channel's event loop.
 */
final class ResponseHandler extends ChannelInboundHandlerAdapter implements ResponseDecoder.Listener {
    /** The channel's handler, also once the channel closed (Netty then empties the pipeline). */
    static final AttributeKey<ResponseHandler> KEY = AttributeKey.valueOf(ResponseHandler.class, "responses");

    private final ConnectTimer timer;
    /** The connection's chunk scanner: its template carries over from one reply to the next on this connection. */
    private final ChunkScanner scanner = new ChunkScanner();
    private final ResponseDecoder decoder = new ResponseDecoder(this);
    private Exchange current;
    private long arrivalNanos = Moments.ABSENT;
    /** Why the TLS handshake failed, if it did: what the request learns when the close reaches it first. */
    private Throwable handshakeFailure;

    ResponseHandler(ConnectTimer timer) {
        this.timer = timer;
    }

    /** The connection's timings if the caller is its first user; {@code null} on a reused connection. */
    ConnectTimer takeFreshConnection() {
        return timer.takeIfFresh();
    }

    /** A spare channel is being connected: its connection's timings start now. */
    void connectStarting() {
        timer.restart();
    }

    ChunkScanner scanner() {
        return scanner;
    }

    /** The exchange whose request is about to be written: the next bytes are its response. */
    void attach(Exchange exchange) {
        current = exchange;
        decoder.expectResponse();
    }

    void detach(Exchange exchange) {
        if (current == exchange) {
            current = null;
        }
    }

    long arrivalNanos() {
        return arrivalNanos;
    }

    void handshakeFailed(Throwable cause) {
        handshakeFailure = cause;
    }

    /** Why the TLS handshake failed, or null (it did not, or has not yet). */
    Throwable handshakeFailure() {
        return handshakeFailure;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Exchange exchange = current;
        if (exchange == null || !(msg instanceof ByteBuf buf)) {
            // bytes nobody asked for: the connection's state is unknown, so it cannot be reused
            ReferenceCountUtil.release(msg);
            ctx.close();
            return;
        }
        exchange.onRead(arrivalNanos);
        try {
            decoder.feed(buf);
        } catch (ResponseDecoder.MalformedResponseException e) {
            Exchange failed = current != null ? current : exchange;
            failed.onMalformed(e.getMessage(), arrivalNanos);
            ctx.close();
        } finally {
            buf.release();
        }
        Exchange after = current;
        if (after != null) {
            after.afterRead();
        }
    }

    @Override
    public void onHead(int status, String contentType, boolean keepAlive, String retryAfter) {
        Exchange exchange = current;
        if (exchange != null) exchange.onHead(status, contentType, keepAlive, retryAfter, arrivalNanos);
    }

    @Override
    public void onBody(byte[] bytes, int offset, int length) {
        Exchange exchange = current;
        if (exchange != null) exchange.onBody(bytes, offset, length, arrivalNanos);
    }

    @Override
    public void onEnd() {
        Exchange exchange = current;
        if (exchange != null) exchange.onEnd(arrivalNanos);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // a body delimited by the close ends here; any other request in progress was cut
        decoder.inputClosed();
        Exchange exchange = current;
        if (exchange != null && handshakeFailure != null) {
            exchange.onChannelError(handshakeFailure); // tls_error, whichever of the close and the error came first
        } else if (exchange != null) {
            exchange.onConnectionClosed();
        }
        ctx.fireChannelInactive();
    }

    /**
     * The server ended the TLS session (its close_notify): nothing more can arrive and no request can go out on this
     * connection, though its socket may stay open (a server closes idle keep-alive connections this way, with or without
     * its FIN): closed now, so the pool hands it out no more. A reply delimited by the close ends here.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslCloseCompletionEvent) {
            ctx.close();
        }
        ctx.fireUserEventTriggered(evt);
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
