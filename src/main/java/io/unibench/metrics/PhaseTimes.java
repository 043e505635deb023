package io.unibench.metrics;

/**
 * The connection and transfer moments of one request ({@link System#nanoTime()} readings, {@link RequestRecord#ABSENT}
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
 */
public record PhaseTimes(long connectStartNanos, long dnsDoneNanos, long connectDoneNanos, long tlsDoneNanos,
                         long writeStartNanos, long writtenNanos, long firstByteNanos) {

    public static final PhaseTimes NONE = new PhaseTimes(RequestRecord.ABSENT, RequestRecord.ABSENT,
            RequestRecord.ABSENT, RequestRecord.ABSENT, RequestRecord.ABSENT, RequestRecord.ABSENT,
            RequestRecord.ABSENT);

    /** True when the request opened its own connection. */
    public boolean newConnection() {
        return connectStartNanos != RequestRecord.ABSENT;
    }

    /** True when the request went out on a connection it did not open. */
    public boolean reusedConnection() {
        return !newConnection() && writeStartNanos != RequestRecord.ABSENT;
    }
}
