package io.unibench.metrics;

import io.unibench.Moments;
/**
 * The connection and transfer moments of one request ({@link System#nanoTime()} readings, {@link Moments#ABSENT}
 * when the moment did not happen). The connection moments are present only for the request that opened its
 * connection; a reused keep-alive connection has none, and its DNS, connect and TLS phases count as zero.
 *
 * @param connectStartNanos new connection registered, name resolution began
 * @param dnsDoneNanos      address resolved, TCP connect issued
 * @param connectDoneNanos  TCP connection established
 * @param tlsDoneNanos      TLS handshake finished (https only)
 * @param writeStartNanos   request handed to the connection
 * @param writtenNanos      last byte of the request written
 * @param firstByteNanos    first read of the response arrived
 * @param staleStartNanos   start of a first attempt wasted on a pooled connection the server had already closed (it
 *                          failed before any response byte, and the request was sent again on a new connection; the
 *                          record's start is the second attempt's); absent when the request was sent once
 */
public record PhaseTimes(long connectStartNanos, long dnsDoneNanos, long connectDoneNanos, long tlsDoneNanos,
                         long writeStartNanos, long writtenNanos, long firstByteNanos, long staleStartNanos) {

    public static final PhaseTimes NONE = new PhaseTimes(Moments.ABSENT, Moments.ABSENT,
            Moments.ABSENT, Moments.ABSENT, Moments.ABSENT, Moments.ABSENT,
            Moments.ABSENT);

    /** Moments of a request sent once. */
    public PhaseTimes(long connectStartNanos, long dnsDoneNanos, long connectDoneNanos, long tlsDoneNanos,
                      long writeStartNanos, long writtenNanos, long firstByteNanos) {
        this(connectStartNanos, dnsDoneNanos, connectDoneNanos, tlsDoneNanos, writeStartNanos, writtenNanos,
                firstByteNanos, Moments.ABSENT);
    }

    /** True when the request was sent a second time because its pooled connection had gone stale. */
    public boolean retriedStaleConnection() {
        return staleStartNanos != Moments.ABSENT;
    }

    /** True when the request opened its own connection. */
    public boolean newConnection() {
        return connectStartNanos != Moments.ABSENT;
    }

    /** True when the request went out on a connection it did not open. */
    public boolean reusedConnection() {
        return !newConnection() && writeStartNanos != Moments.ABSENT;
    }
}
