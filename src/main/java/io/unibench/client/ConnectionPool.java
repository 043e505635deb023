package io.unibench.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.EventExecutor;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Keep-alive connections to the one endpoint, at most {@code maxConnections} open (connecting ones included).
 * Idle connections are reused most-recent first; a caller finding none free and the pool full waits in FIFO
 * order. Every channel is counted once, from its connect attempt until its close future completes, so a
 * connection the server closes while idle frees its slot by itself (half-closure is off: the server's FIN closes
 * the channel, so {@link Channel#isActive()} is false from the moment its loop read it).
 *
 * <p>A closed connection whose FIN is still on its way looks alive; the request that picks it fails before any
 * response byte and is sent once more by {@link Exchange} as a waiter that {@linkplain Waiter#wantsNewConnection()
 * wants a new connection}: it goes first in the queue and is never handed a pooled one.
 *
 * <p>A server that closes its connections after a fixed number of replies while its headers say keep-alive
 * (llama.cpp's server closes ~0.03 ms after every streamed reply) is learned: when the server closed two connections
 * in a row right after the same number of replies ({@link #QUICK_CLOSE_NANOS}, seen while idle or as a stale failure on
 * reuse), a connection that has served that many is <em>retired</em> at its release instead of pooled: it frees its
 * slot at once (the next request opens a new connection without waiting for the close) and is left for the server to
 * close, or closed after {@link #RETIRED_GRACE_NANOS} (1 s) — and then the rule is forgotten, as the server did not keep
 * it. So the next request is not written to a connection the server is closing and then sent again.
 *
 * <p>When the endpoint's address needs no lookup, the pool keeps one <em>spare</em>: a socket made and registered
 * with an event loop but not connected. The next new connection connects it, so a request's start → connect is the
 * hand-over to the event loop alone, not also the channel's construction and registration (~0.1–0.15 ms under the
 * launcher's C1). It is made after a request that opened a connection got its first token (or ended), not while the
 * server works on that request's prompt: there its CPU made llama-server's first token later at c=1 (bench/HISTORY.md,
 * "the spare socket after the first token"). A new connection asked for while the spare is being made waits for it on
 * the spare's loop, behind the task that makes it.
 */
final class ConnectionPool {

    /** Someone waiting for a connection. Called without the pool's lock held, on any thread. */
    interface Waiter {
        void onAcquired(Channel channel);

        void onConnectFailed(Throwable cause);

        /** A waiter that no longer wants a connection (cancelled, timed out) is skipped. */
        boolean isDone();

        /** The waiter was queued: no connection is free and the pool is full (called without the lock). */
        default void onQueued() {
        }

        /** True for a request sent again after a stale connection: it must go out on a connection of its own. */
        default boolean wantsNewConnection() {
            return false;
        }
    }

    /** A server close this soon after a connection's last reply is the server's rule, not an idle timeout. */
    static final long QUICK_CLOSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long a retired connection is left for the server to close before the pool closes it itself. */
    static final long RETIRED_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** What the pool knows of one connection; guarded by the pool's lock. */
    private static final class Use {
        int replies;
        long releasedNanos;
        boolean retired;
        boolean closedByPool;
    }

    private static final AttributeKey<Use> USE = AttributeKey.valueOf(ConnectionPool.class, "use");

    private final Bootstrap bootstrap;
    private final int maxConnections;
    private final LongSupplier clock;
    private final long retiredGraceNanos;
    /** The endpoint's resolved address, or null when it is a host name (resolved per connect: no spare then). */
    private final SocketAddress resolvedRemote;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Channel> idle = new ArrayDeque<>();
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    /** Retired connections not closed yet (not counted in {@link #open}). */
    private final Set<Channel> retired = new HashSet<>();
    private int open;
    private boolean closed;
    /** Replies after which the server closes a connection, once learned; 0 unknown. */
    private int closesAfter;
    /** The reply count of the server's latest quick close, and how many quick closes in a row had it. */
    private int lastClosedAfter;
    private int sameCloses;
    /** A registered, unconnected channel for the next new connection; null when none. */
    private Channel spare;
    /** The loop the spare is being made on; null when none is. */
    private EventLoop spareLoop;
    private long spareRequestedNanos = Long.MIN_VALUE;
    private long sparesUsed;

    ConnectionPool(Bootstrap bootstrap, int maxConnections) {
        this(bootstrap, maxConnections, System::nanoTime, RETIRED_GRACE_NANOS);
    }

    /**
     * @param clock             {@link System#nanoTime()} or a test's: when a reply ended and when the server closed
     * @param retiredGraceNanos how long a retired connection is left for the server to close
     */
    ConnectionPool(Bootstrap bootstrap, int maxConnections, LongSupplier clock, long retiredGraceNanos) {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1, got " + maxConnections);
        }
        this.bootstrap = bootstrap;
        this.maxConnections = maxConnections;
        this.clock = clock;
        this.retiredGraceNanos = retiredGraceNanos;
        SocketAddress remote = bootstrap.config().remoteAddress();
        this.resolvedRemote = remote instanceof InetSocketAddress a && !a.isUnresolved() ? a : null;
    }

    void acquire(Waiter waiter) {
        Channel reuse = null;
        Channel makeRoom = null;
        boolean connect = false;
        boolean queued = false;
        lock.lock();
        try {
            if (closed) {
                connect = false;
            } else if (waiter.wantsNewConnection()) {
                if (open < maxConnections) {
                    open++;
                    connect = true;
                } else {
                    // first in line for the next free slot; an idle connection is closed to free one now
                    waiters.addFirst(waiter);
                    queued = true;
                    makeRoom = idle.pollFirst();
                }
            } else {
                reuse = pollActiveIdle();
                if (reuse == null) {
                    if (open < maxConnections) {
                        open++;
                        connect = true;
                    } else {
                        waiters.addLast(waiter);
                        queued = true;
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        if (queued) {
            waiter.onQueued();
            if (makeRoom != null) {
                makeRoom.close(); // its close hands the slot to the waiter
            }
        } else if (reuse != null) {
            waiter.onAcquired(reuse);
        } else if (connect) {
            connect(waiter);
        } else {
            waiter.onConnectFailed(new IllegalStateException("client closed"));
        }
    }

    /**
     * Gives a channel back. A reusable, still-open channel goes to the next waiter or the idle set; any other is
     * closed, and its close frees the slot.
     */
    void release(Channel channel, boolean reusable) {
        if (!reusable || !channel.isActive()) {
            channel.close();
            return;
        }
        Waiter next;
        boolean retire = false;
        lock.lock();
        try {
            Use use = use(channel);
            use.replies++;
            use.releasedNanos = clock.getAsLong();
            if (closed) {
                next = null;
            } else if (closesAfter > 0 && use.replies >= closesAfter) {
                // the server closes it now: free the slot for the next request instead of lending it a dying one
                retire = true;
                use.retired = true;
                retired.add(channel);
                open--;
                next = pollLiveWaiter();
                if (next != null) {
                    open++;
                }
            } else {
                next = pollLiveWaiter();
                if (next == null) {
                    idle.addLast(channel);
                    return;
                }
                if (next.wantsNewConnection()) {
                    waiters.addFirst(next); // this channel's close gives it the slot
                    next = null;
                }
            }
        } finally {
            lock.unlock();
        }
        if (retire) {
            scheduleRetiredClose(channel);
            if (next != null) {
                connect(next);
            }
        } else if (next == null) {
            channel.close();
        } else {
            next.onAcquired(channel);
        }
    }

    /**
     * A request failed on this reused connection before any reply byte (the server had closed it): a server close
     * right after its replies, counted as one seen while the connection was idle.
     */
    void closedWhenReused(Channel channel) {
        lock.lock();
        try {
            serverClosed(use(channel));
        } finally {
            lock.unlock();
        }
    }

    /** Replies after which the server has been seen to close its connections; 0 while unknown. */
    int closesAfter() {
        lock.lock();
        try {
            return closesAfter;
        } finally {
            lock.unlock();
        }
    }

    /** New connections made on a spare channel (for tests and diagnostics). */
    long sparesUsed() {
        lock.lock();
        try {
            return sparesUsed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Makes the spare channel if there is none, in a task of {@code loop} (never inside its batch of socket events:
     * see {@link #connect}). Called on an event loop after a request that opened a connection was written.
     */
    void prepareSpare(EventLoop loop) {
        if (resolvedRemote == null) {
            return;
        }
        lock.lock();
        try {
            if (closed || spare != null || spareLoop != null) {
                return;
            }
            spareLoop = loop;
            spareRequestedNanos = clock.getAsLong();
        } finally {
            lock.unlock();
        }
        try {
            loop.execute(() -> makeSpare(loop));
        } catch (RejectedExecutionException shuttingDown) {
            spareDone(null);
        }
    }

    /** On {@code loop}: a channel made and registered there (no hand-over to another loop). */
    private void makeSpare(EventLoop loop) {
        ChannelFuture registered;
        try {
            if (loop.isShuttingDown() || isClosed()) {
                spareDone(null);
                return;
            }
            registered = bootstrap.clone(loop).register();
        } catch (RuntimeException e) {
            spareDone(null);
            return;
        }
        registered.addListener(f -> spareDone(f.isSuccess() ? registered.channel() : null));
        if (registered.isDone() && !registered.isSuccess()) {
            registered.channel().close();
        }
    }

    private void spareDone(Channel made) {
        boolean keep = false;
        lock.lock();
        try {
            spareLoop = null;
            if (made != null && !closed && spare == null) {
                spare = made;
                keep = true;
            }
        } finally {
            lock.unlock();
        }
        if (made != null && !keep) {
            made.close();
        }
    }

    private EventLoop spareInTheMaking() {
        lock.lock();
        try {
            return spareLoop;
        } finally {
            lock.unlock();
        }
    }

    /** When the latest spare was asked for (the pool's clock; {@code Long.MIN_VALUE} never): for tests. */
    long spareRequestedNanos() {
        lock.lock();
        try {
            return spareRequestedNanos;
        } finally {
            lock.unlock();
        }
    }

    /** The spare, if there is a usable one (registered, open, not connected); null otherwise. */
    private Channel takeSpare() {
        Channel s;
        lock.lock();
        try {
            s = spare;
            spare = null;
        } finally {
            lock.unlock();
        }
        if (s == null) {
            return null;
        }
        if (!s.isRegistered() || !s.isOpen() || s.isActive()) {
            s.close();
            return null;
        }
        lock.lock();
        try {
            sparesUsed++;
        } finally {
            lock.unlock();
        }
        return s;
    }

    private void scheduleRetiredClose(Channel channel) {
        Runnable closeIfLeft = () -> {
            lock.lock();
            try {
                if (!retired.contains(channel)) return;
                use(channel).closedByPool = true;
            } finally {
                lock.unlock();
            }
            channel.close();
        };
        try {
            channel.eventLoop().schedule(closeIfLeft, retiredGraceNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shuttingDown) {
            channel.close();
        }
    }

    /** The server closed a connection (under the lock): learns the rule from quick closes after the same count. */
    private void serverClosed(Use use) {
        if (use.replies < 1 || clock.getAsLong() - use.releasedNanos > QUICK_CLOSE_NANOS) {
            sameCloses = 0; // an idle timeout, or a close before any reply: no rule
            return;
        }
        if (use.replies == lastClosedAfter) {
            sameCloses++;
        } else {
            lastClosedAfter = use.replies;
            sameCloses = 1;
        }
        if (sameCloses >= 2) {
            closesAfter = use.replies;
        }
    }

    private static Use use(Channel channel) {
        Use use = channel.attr(USE).get();
        if (use == null) {
            use = new Use();
            channel.attr(USE).set(use);
        }
        return use;
    }

    /** Channels open or connecting. */
    int openConnections() {
        lock.lock();
        try {
            return open;
        } finally {
            lock.unlock();
        }
    }

    /** Closes idle channels and refuses new acquisitions; in-use channels are closed by their users. */
    void close() {
        List<Channel> toClose;
        List<Waiter> toFail;
        lock.lock();
        try {
            closed = true;
            toClose = new ArrayList<>(idle);
            idle.clear();
            toClose.addAll(retired);
            if (spare != null) {
                toClose.add(spare);
                spare = null;
            }
            toFail = new ArrayList<>(waiters);
            waiters.clear();
        } finally {
            lock.unlock();
        }
        toClose.forEach(Channel::close);
        IllegalStateException cause = new IllegalStateException("client closed");
        toFail.forEach(w -> w.onConnectFailed(cause));
    }

    /**
     * Opens a connection for {@code waiter}, whose slot is already counted. Called on one of the client's event loops
     * (a close seen while reading, a retry after a stale connection), the socket is made in a task of that loop
     * rather than at once: a loop handles the events of one {@code epoll_wait} as a batch, keyed by file descriptor,
     * and a descriptor closed while the batch is handled is handed at once to the next new socket. Registered on the
     * same loop inside the batch, the new socket would receive the closed connection's events still in it (a FIN or
     * reset read on a socket not yet connected: "closed" before it connected), a request failed that the server
     * never saw. A task runs after the batch.
     */
    private void connect(Waiter waiter) {
        for (EventExecutor loop : bootstrap.config().group()) {
            if (loop.inEventLoop()) {
                try {
                    loop.execute(() -> openConnection(waiter));
                } catch (RejectedExecutionException shuttingDown) {
                    slotUnused();
                    waiter.onConnectFailed(new IllegalStateException("client closed"));
                }
                return;
            }
        }
        openConnection(waiter);
    }

    private boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    private void slotUnused() {
        lock.lock();
        try {
            open--;
        } finally {
            lock.unlock();
        }
    }

    private void openConnection(Waiter waiter) {
        EventLoop making = spareInTheMaking();
        if (making != null && !making.inEventLoop()) {
            try {
                making.execute(() -> openConnection(waiter)); // runs after the task making the spare: it is there
                return;
            } catch (RejectedExecutionException shuttingDown) {
                // the loop is stopping: connect without the spare below (the close fails it as usual)
            }
        }
        Channel ready = takeSpare();
        ChannelFuture future;
        if (ready != null) {
            ResponseHandler handler = ready.attr(ResponseHandler.KEY).get();
            if (handler != null) {
                handler.connectStarting(); // the connection's timings start now, not when the spare was made
            }
            future = ready.connect(resolvedRemote);
        } else {
            future = bootstrap.connect();
        }
        Channel channel = future.channel();
        channel.closeFuture().addListener(f -> onClosed(channel));
        future.addListener(f -> {
            if (f.isSuccess()) {
                waiter.onAcquired(channel);
            } else {
                channel.close(); // usually closed already; makes sure the slot is freed via the close future
                waiter.onConnectFailed(f.cause());
            }
        });
    }

    private void onClosed(Channel channel) {
        Waiter next = null;
        lock.lock();
        try {
            Use use = channel.attr(USE).get();
            if (use != null && use.retired) {
                retired.remove(channel);
                if (use.closedByPool && closesAfter == use.replies) {
                    closesAfter = 0; // the server kept it open: that was not its rule
                    sameCloses = 0;
                }
                return; // its slot was freed when it was retired
            }
            if (idle.remove(channel) && use != null) {
                serverClosed(use); // closed while idle: by the server (the pool closes no idle channel but at close)
            }
            open--;
            if (!closed) {
                next = pollLiveWaiter();
                if (next != null) {
                    open++;
                }
            }
        } finally {
            lock.unlock();
        }
        if (next != null) {
            connect(next);
        }
    }

    private Channel pollActiveIdle() {
        Channel c;
        while ((c = idle.pollLast()) != null) {
            if (c.isActive()) {
                return c;
            }
            // a dead idle channel (the server closed it) is dropped here; its close listener frees the slot
            Use use = c.attr(USE).get();
            if (use != null) {
                serverClosed(use);
            }
        }
        return null;
    }

    private Waiter pollLiveWaiter() {
        Waiter w;
        while ((w = waiters.pollFirst()) != null) {
            if (!w.isDone()) {
                return w;
            }
        }
        return null;
    }
}
