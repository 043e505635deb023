package io.unibench.sim;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Ends keep-alive connections the way real servers and gateways do ({@link SimConfig.Connections}): right after
 * every reply although it said keep-alive (llama.cpp), after a connection was idle a while (nginx, uvicorn, load
 * balancers: no notice), or after K replies, the last saying {@code Connection: close} (nginx). Sits between the
 * HTTP codec and the request handler, so it sees every response whatever path wrote it. One per connection, on its
 * event loop; only added when a knob is on.
 */
final class ConnectionCloser extends ChannelDuplexHandler {
    private final SimConfig.Connections policy;
    private int replies;
    /** Requests read whose reply is not completely written yet: the connection is idle at 0. */
    private int unanswered;
    private boolean closeAfterThisReply;
    private ScheduledFuture<?> idleClose;

    ConnectionCloser(SimConfig.Connections policy) {
        this.policy = policy;
    }

    static boolean needed(SimConfig.Connections policy) {
        return policy.closeAfterReply() || policy.keepaliveTimeoutMs() > 0 || policy.keepaliveRequests() > 0;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            unanswered++;
            if (idleClose != null) {
                idleClose.cancel(false); // busy again
                idleClose = null;
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse head) {
            replies++;
            closeAfterThisReply = policy.closeAfterReply();
            if (policy.keepaliveRequests() > 0 && replies >= policy.keepaliveRequests()) {
                HttpUtil.setKeepAlive(head, false);
                closeAfterThisReply = true;
            }
        }
        if (!(msg instanceof LastHttpContent)) {
            ctx.write(msg, promise);
            return;
        }
        unanswered = Math.max(0, unanswered - 1);
        ChannelPromise written = promise.unvoid(); // some responders write with the void promise
        ctx.write(msg, written);
        if (closeAfterThisReply) {
            written.addListener(ChannelFutureListener.CLOSE);
        } else if (policy.keepaliveTimeoutMs() > 0) {
            written.addListener(f -> {
                if (unanswered > 0 || idleClose != null) return; // a pipelined request is being answered
                idleClose = ctx.executor().schedule(() -> ctx.close(), policy.keepaliveTimeoutMs(),
                        TimeUnit.MILLISECONDS);
            });
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (idleClose != null) idleClose.cancel(false);
        ctx.fireChannelInactive();
    }
}
