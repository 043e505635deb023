package io.unibench.store;

import io.unibench.Moments;
import static io.unibench.Moments.ABSENT;

import io.unibench.metrics.RequestRecord;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The per-request fields of an export: those of {@code requests.jsonl} (same names in the same order, moments in
 * seconds since the point's start, null when undefined; {@code RequestsJsonlWriterTest} holds the two together),
 * except {@code phases_ms} (derived from the moments), plus {@code token_chunk_s}, the arrival moment of every text
 * chunk, which makes an export rebuild the exact records ({@code itl_s} alone loses where the first chunk was).
 */
public final class RequestFields {
    /** A named field; its value is a Long, Double, Boolean, String, double[] or null. */
    public record Field(String name, Function<RequestRecord, Object> value) {}

    public static final List<Field> ALL = List.of(
            new Field("index", r -> r.position().index()),
            new Field("request_id", r -> r.position().requestId()),
            new Field("conversation_id", r -> r.position().conversationId()),
            new Field("turn", r -> (long) r.position().turnIndex()),
            new Field("is_first_turn", r -> r.position().firstTurn()),
            new Field("is_last_turn", r -> r.position().lastTurn()),
            new Field("stream", r -> r.timing().stream()),
            new Field("success", RequestRecord::success),
            new Field("error_class", r -> r.outcome().errorClass()),
            new Field("http_status", r -> (long) r.outcome().httpStatus()),
            new Field("error_message", r -> r.outcome().errorMessage()),
            new Field("finish_reason", r -> r.outcome().finishReason()),
            new Field("start_epoch_ms", r -> r.timing().startEpochMillis()),
            new Field("scheduled_s", r -> moment(r.timing().scheduledNanos())),
            new Field("start_s", r -> moment(r.timing().startNanos())),
            new Field("headers_s", r -> moment(r.timing().headersNanos())),
            new Field("first_chunk_s", r -> moment(r.timing().firstChunkNanos())),
            new Field("first_token_s", r -> moment(r.timing().firstTokenNanos())),
            new Field("end_s", r -> moment(r.timing().endNanos())),
            new Field("new_connection", r -> r.phases().newConnection()),
            new Field("connect_start_s", r -> moment(r.phases().connectStartNanos())),
            new Field("dns_done_s", r -> moment(r.phases().dnsDoneNanos())),
            new Field("connect_done_s", r -> moment(r.phases().connectDoneNanos())),
            new Field("tls_done_s", r -> moment(r.phases().tlsDoneNanos())),
            new Field("write_start_s", r -> moment(r.phases().writeStartNanos())),
            new Field("written_s", r -> moment(r.phases().writtenNanos())),
            new Field("first_byte_s", r -> moment(r.phases().firstByteNanos())),
            new Field("latency_s", r -> finite(r.latencySeconds())),
            new Field("ttft_s", r -> finite(r.ttftSeconds())),
            new Field("first_chunk_latency_s", r -> finite(r.firstChunkSeconds())),
            new Field("tpot_s", r -> finite(r.tpotSeconds())),
            new Field("queue_delay_s", r -> finite(r.queueDelaySeconds())),
            new Field("tokens_per_chunk", r -> finite(r.tokensPerChunk())),
            new Field("itl_s", RequestFields::itl),
            new Field("token_chunk_s", RequestFields::chunks),
            new Field("prompt_tokens", r -> count(r.tokens().prompt())),
            new Field("completion_tokens", r -> count(r.tokens().completion())),
            new Field("cached_tokens", r -> count(r.tokens().cached())),
            new Field("cached_token_source", r -> r.tokens().cachedSource() == null ? null
                    : r.tokens().cachedSource().name().toLowerCase(Locale.ROOT)),
            new Field("token_source", r -> r.tokens().source() == null ? null
                    : r.tokens().source().name().toLowerCase(Locale.ROOT)),
            new Field("target_prompt_tokens", r -> count(r.tokens().promptTarget())),
            new Field("synthesized_prompt_tokens", r -> count(r.tokens().promptSynth())),
            new Field("error_type", r -> r.outcome().errorType()),
            new Field("server_prompt_n", r -> r.serverTimings() == null ? null : count(r.serverTimings().promptN())),
            new Field("server_prompt_ms", r -> r.serverTimings() == null ? null : finite(r.serverTimings().promptMs())),
            new Field("server_predicted_n",
                    r -> r.serverTimings() == null ? null : count(r.serverTimings().predictedN())),
            new Field("server_predicted_ms",
                    r -> r.serverTimings() == null ? null : finite(r.serverTimings().predictedMs())),
            new Field("server_cache_n", r -> r.serverTimings() == null ? null : count(r.serverTimings().cacheN())),
            new Field("retried_stale_connection", RequestRecord::retriedStaleConnection),
            new Field("stale_attempt_start_s", r -> moment(r.phases().staleStartNanos())));

    private RequestFields() {}

    private static Double moment(long nanos) {
        return nanos == ABSENT ? null : nanos / 1e9;
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static Long count(int v) {
        return v >= 0 ? (long) v : null;
    }

    private static double[] itl(RequestRecord r) {
        double[] out = new double[r.interChunkCount()];
        for (int i = 0; i < out.length; i++) out[i] = r.interChunkSeconds(i);
        return out;
    }

    private static double[] chunks(RequestRecord r) {
        long[] t = r.timing().tokenChunkNanos();
        double[] out = new double[t.length];
        for (int i = 0; i < t.length; i++) out[i] = t[i] / 1e9;
        return out;
    }

    /** Nanoseconds from an exported moment in seconds (exact: a double holds ns for 100 days). */
    public static long nanos(Double seconds) {
        return seconds == null ? ABSENT : Math.round(seconds * 1e9);
    }
}
