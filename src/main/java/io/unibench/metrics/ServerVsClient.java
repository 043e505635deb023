package io.unibench.metrics;

import java.util.List;

/**
 * The server's own timing beside the client's, over the successful requests whose server sent it (llama.cpp
 * {@code timings}): prefill time against TTFT, decode time per token against TPOT, and the per-request differences.
 * TTFT − prefill is what the server's prefill clock does not see: the network both ways, the wait for a slot
 * (queueing inside the server before prefill starts), the server's HTTP and tokenization work, and the client.
 * TPOT − server decode is the same for the decode phase (streaming and network jitter, the client's reading); its
 * rows hold only the requests whose token counts are the server's ({@code usage} or {@code timings}), never a client
 * estimate beside the server's figure. A reply that was not streamed has no TTFT: its rows are the client's latency,
 * the server's whole decode time and latency − prefill − decode.
 *
 * @param requests          the successful requests that carried timings
 * @param rows              one row per figure, in milliseconds
 * @param estimatedLeftOut  streamed requests left out of the TPOT rows because their token counts were the client's
 */
public record ServerVsClient(long requests, List<Row> rows, long estimatedLeftOut) {
    /** {@code timings.prompt_ms}. */
    public static final String SERVER_PREFILL = "Server Prefill";
    public static final String CLIENT_TTFT = "Client TTFT";
    /** Per request, then the distribution: not the difference of the two distributions' percentiles. */
    public static final String TTFT_MINUS_PREFILL = "TTFT - Server Prefill";
    /** {@code timings.predicted_ms / (timings.predicted_n − 1)}, see {@link ServerTimings#decodeMsPerToken()}. */
    public static final String SERVER_DECODE = "Server Decode per Token";
    public static final String CLIENT_TPOT = "Client TPOT";
    public static final String TPOT_MINUS_DECODE = "TPOT - Server Decode per Token";
    /** A reply that was not streamed: the client's whole latency (it has no TTFT). */
    public static final String CLIENT_LATENCY_NO_STREAM = "Client Latency (not streamed)";
    /** {@code timings.predicted_ms}: the server's whole decode of a reply that was not streamed. */
    public static final String SERVER_DECODE_WHOLE = "Server Decode (whole reply)";
    /** Per request: network, queueing before the server's slot, the client; for replies that were not streamed. */
    public static final String LATENCY_MINUS_SERVER = "Latency - Server Prefill - Decode";

    public ServerVsClient {
        rows = List.copyOf(rows);
    }

    /** A comparison without requests left out. */
    public ServerVsClient(long requests, List<Row> rows) {
        this(requests, rows, 0);
    }

    /**
     * One figure over the requests where it is defined.
     *
     * @param metric its name, one of the constants above
     * @param n      requests it is defined for (decode needs ≥ 2 tokens)
     */
    public record Row(String metric, long n, Double mean, Double p50, Double p90, Double p99) {}

    /** The row of {@code metric}, or null. */
    public Row row(String metric) {
        for (Row r : rows) if (r.metric().equals(metric)) return r;
        return null;
    }
}
