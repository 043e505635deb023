package io.unibench.client;

import io.unibench.Moments;
/**
 * The connection and transfer moments of one request, as curl's {@code -w} timings know them, in
 * {@link System#nanoTime()} readings; {@link Moments#ABSENT} when the moment did not happen for this request.
 * The connection moments exist only for the request that opened the connection: on a reused keep-alive connection
 * they are absent, so DNS, connect and TLS count as zero for it.
 *
 * @param connectStartNanos the new channel was registered and name resolution began
 * @param dnsDoneNanos      the address was resolved and the TCP connect issued
 * @param connectDoneNanos  the TCP connection was established
 * @param tlsDoneNanos      the TLS handshake finished (https only)
 * @param writeStartNanos   the request was handed to the connection for writing
 * @param writtenNanos      the last byte of the request was written to the socket
 * @param firstByteNanos    the first read of the response arrived
 * @param staleStartNanos   the request was first sent on a pooled connection the server had closed (it failed before
 *                          any response byte) and then sent again on a new connection: when that wasted first attempt
 *                          started. The result's start is the second attempt's; absent when sent once
 */
public record WireTimes(long connectStartNanos, long dnsDoneNanos, long connectDoneNanos, long tlsDoneNanos,
                        long writeStartNanos, long writtenNanos, long firstByteNanos, long staleStartNanos) {

    /** Nothing known (a failure before a connection was assigned, or a result built by a test). */
    public static final WireTimes NONE = new WireTimes(Moments.ABSENT, Moments.ABSENT, Moments.ABSENT,
            Moments.ABSENT, Moments.ABSENT, Moments.ABSENT, Moments.ABSENT);

    /** Moments of a request sent once. */
    public WireTimes(long connectStartNanos, long dnsDoneNanos, long connectDoneNanos, long tlsDoneNanos,
                     long writeStartNanos, long writtenNanos, long firstByteNanos) {
        this(connectStartNanos, dnsDoneNanos, connectDoneNanos, tlsDoneNanos, writeStartNanos, writtenNanos,
                firstByteNanos, Moments.ABSENT);
    }

    /** True when this request opened its connection (false on a reused connection or when unknown). */
    public boolean newConnection() {
        return connectStartNanos != Moments.ABSENT;
    }

    /** True when a stale pooled connection made the client send the request a second time. */
    public boolean retriedStaleConnection() {
        return staleStartNanos != Moments.ABSENT;
    }
}
