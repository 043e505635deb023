package io.unibench.metrics;

import static io.unibench.Moments.ABSENT;

/**
 * The consecutive phases of one request, as curl's {@code -w} timings split it. For a successful request they add
 * up to its latency exactly: queue + DNS + connect + TLS + write + server wait + first token + transfer = end − start.
 * A phase that does not apply is NaN (left out of statistics): TLS on plain HTTP, first token of a non-streamed
 * reply; DNS, connect and TLS are 0 on a reused connection. {@link #STALE_ATTEMPT} lies before the start and is
 * not part of the latency (it is part of the open loop's queue delay, which runs from the schedule to the start).
 */
public enum Phase {
    /** Start until a connection was in hand: waiting for a free pooled connection (or for the new one to register). */
    QUEUE("Queue (pool wait)"),
    DNS("DNS lookup"),
    CONNECT("TCP connect"),
    TLS("TLS handshake"),
    /** From connection ready (or handed over, when reused) to the last request byte written. */
    WRITE("Request write"),
    /** Request written to the first response byte: network round trip plus the server's queue (and prefill, for servers that send headers late). */
    SERVER_WAIT("Server wait (first byte)"),
    /** First response byte to the first token (streamed replies): prefill on servers that answer headers at once. */
    FIRST_TOKEN("First byte → first token"),
    /** First token (first byte when not streamed) to the last byte: generation and transfer. */
    TRANSFER("First token → last byte"),
    /**
     * A first attempt on a pooled connection the server had closed, from its start until its failure, after which
     * the request was sent again on a new connection (from where the record's start, latency and TTFT count).
     * NaN for requests sent once, so its n is the number of retried requests.
     */
    STALE_ATTEMPT("Stale connection (retried)");

    private final String label;

    Phase(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** This phase of {@code r} in milliseconds; NaN when it does not apply or a moment is missing. */
    public double millis(RequestRecord r) {
        PhaseTimes p = r.phases();
        boolean fresh = p.newConnection();
        boolean reused = p.reusedConnection();
        return switch (this) {
            case QUEUE -> ms(r.timing().startNanos(), fresh ? p.connectStartNanos() : p.writeStartNanos());
            case DNS -> fresh ? ms(p.connectStartNanos(), p.dnsDoneNanos()) : reused ? 0 : Double.NaN;
            case CONNECT -> fresh ? ms(p.dnsDoneNanos(), p.connectDoneNanos()) : reused ? 0 : Double.NaN;
            case TLS -> fresh ? ms(p.connectDoneNanos(), p.tlsDoneNanos()) : reused ? 0 : Double.NaN;
            case WRITE -> ms(fresh ? connectionReady(p) : p.writeStartNanos(), p.writtenNanos());
            case SERVER_WAIT -> ms(p.writtenNanos(), p.firstByteNanos());
            case FIRST_TOKEN -> r.timing().stream() ? ms(p.firstByteNanos(), r.timing().firstTokenNanos()) : Double.NaN;
            case TRANSFER -> ms(r.timing().stream() ? r.timing().firstTokenNanos() : p.firstByteNanos(),
                    r.timing().endNanos());
            case STALE_ATTEMPT -> ms(p.staleStartNanos(), r.timing().startNanos());
        };
    }

    private static long connectionReady(PhaseTimes p) {
        return p.tlsDoneNanos() != ABSENT ? p.tlsDoneNanos() : p.connectDoneNanos();
    }

    private static double ms(long from, long to) {
        if (from == ABSENT || to == ABSENT) return Double.NaN;
        return (to - from) / 1e6;
    }
}
