package io.unibench.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;

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
 */
final class ConnectionPool {

    /** Someone waiting for a connection. Called without the pool's lock held, on any thread. */
    interface Waiter {
        void onAcquired(Channel channel);

        void onConnectFailed(Throwable cause);

        /** A waiter that no longer wants a connection (cancelled, timed out) is skipped. */
        boolean isDone();

        /** True for a request sent again after a stale connection: it must go out on a connection of its own. */
        default boolean wantsNewConnection() {
            return false;
        }
    }

    private final Bootstrap bootstrap;
    private final int maxConnections;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Channel> idle = new ArrayDeque<>();
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private int open;
    private boolean closed;

    ConnectionPool(Bootstrap bootstrap, int maxConnections) {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1, got " + maxConnections);
        }
        this.bootstrap = bootstrap;
        this.maxConnections = maxConnections;
    }

    void acquire(Waiter waiter) {
        Channel reuse = null;
        Channel makeRoom = null;
        boolean connect = false;
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
                    makeRoom = idle.pollFirst();
                    if (makeRoom == null) return;
                }
            } else {
                reuse = pollActiveIdle();
                if (reuse == null) {
                    if (open < maxConnections) {
                        open++;
                        connect = true;
                    } else {
                        waiters.addLast(waiter);
                        return;
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        if (makeRoom != null) {
            makeRoom.close(); // its close hands the slot to the waiter
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
        lock.lock();
        try {
            if (closed) {
                next = null;
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
        if (next == null) {
            channel.close();
        } else {
            next.onAcquired(channel);
        }
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

    private void slotUnused() {
        lock.lock();
        try {
            open--;
        } finally {
            lock.unlock();
        }
    }

    private void openConnection(Waiter waiter) {
        ChannelFuture future = bootstrap.connect();
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
            idle.remove(channel);
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
            // a dead idle channel is dropped here; its close listener frees the slot
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
