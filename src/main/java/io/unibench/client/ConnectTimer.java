package io.unibench.client;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

import io.unibench.Moments;
import java.net.SocketAddress;

/**
 * Notes when a new connection resolved its address, connected and finished TLS. Netty's bootstrap resolves the
 * host before it passes {@code connect} down the pipeline, so the moment this handler sees {@code connect} is the
 * end of name resolution; the handler is created when the channel registers, just before resolution starts. For an IP
 * address nothing is resolved: the connection's timings start when {@code connect} reaches the loop (DNS 0).
 * The first request on the channel takes the timings ({@link #takeIfFresh()}); later requests reuse the connection
 * and get none. Plain longs, touched on the channel's event loop only: one object per connection, nothing per event.
 */
final class ConnectTimer extends ChannelOutboundHandlerAdapter {
    /** False for an IP address: no name is looked up, so the connect starts when it reaches the loop. */
    private final boolean lookup;
    /** Written by the thread that starts the connect before it hands the connect to the loop ({@link #restart}). */
    private long registeredNanos = System.nanoTime();
    private long resolvedNanos = Moments.ABSENT;
    private long connectedNanos = Moments.ABSENT;
    private long tlsNanos = Moments.ABSENT;
    private boolean taken;

    ConnectTimer(boolean lookup) {
        this.lookup = lookup;
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local, ChannelPromise promise) {
        resolvedNanos = System.nanoTime();
        if (!lookup) {
            // nothing was resolved: a DNS phase would be the hand-over to this loop under a false name (the issue's
            // "DNS lookup of the literal 127.0.0.1"); it counts in Queue, the wait before the connection starts
            registeredNanos = resolvedNanos;
        }
        // The pool listens on the outer promise and writes the request at once when it completes, so the stamp is
        // taken on an inner promise that completes the outer one only afterwards.
        ChannelPromise inner = ctx.newPromise();
        inner.addListener(f -> {
            if (f.isSuccess()) {
                connectedNanos = System.nanoTime();
                promise.trySuccess();
            } else if (f.isCancelled()) {
                promise.cancel(false);
            } else {
                promise.tryFailure(f.cause());
            }
        });
        promise.addListener(f -> {
            if (f.isCancelled()) inner.cancel(false);
        });
        ctx.connect(remote, local, inner);
    }

    /**
     * The connect starts now on a channel made and registered earlier (the pool's spare): its timings count from here,
     * as a channel made for the connect counts from its registration.
     */
    void restart() {
        registeredNanos = System.nanoTime();
    }

    void tlsDone() {
        tlsNanos = System.nanoTime();
    }

    /** This timer if no request used the connection before (and marks it used), else {@code null}. */
    ConnectTimer takeIfFresh() {
        if (taken) return null;
        taken = true;
        return this;
    }

    long registeredNanos() {
        return registeredNanos;
    }

    long resolvedNanos() {
        return resolvedNanos;
    }

    long connectedNanos() {
        return connectedNanos;
    }

    long tlsNanos() {
        return tlsNanos;
    }
}
