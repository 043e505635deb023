package io.unibench.metrics;

import static io.unibench.Moments.ABSENT;

import io.unibench.metrics.RequestRecord.CacheSource;
import io.unibench.metrics.RequestRecord.TokenSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * The one list of per-request fields: each field's name, kind and value. {@code requests.jsonl} writes
 * {@link #JSONL} ({@code output.RequestsJsonlWriter}, the hot path, through the typed extractors) and the run
 * history's export writes {@link #EXPORT} ({@code store.RunExport}, through {@link Field#value}); both are views of
 * {@link #ALL}, in its order. The file has {@code phases_ms}, derived from the moments; the export has instead
 * {@code token_chunk_s}, the arrival moment of every text chunk, which makes an export rebuild the exact records
 * ({@code itl_s} alone loses where the first chunk was).
 *
 * <p>Moments are seconds since an origin (the run's start in the file, the point's start in the export), null when
 * the moment did not happen; counts are null when unknown (-1), real numbers null when undefined (NaN).
 */
public final class RequestFields {

    /** A named field of a request; {@link #value} is its value as the export holds it. */
    public sealed interface Field {
        String name();

        /**
         * The value as a Long, Double, Boolean, String, double[] or null; moments in seconds since {@code origin}
         * ({@code nanoTime}), {@code phases_ms} a map of phase name to milliseconds (null when not applicable).
         */
        Object value(RequestRecord r, long originNanos);
    }

    /** A whole number that is always present. */
    public record Whole(String name, ToLongFunction<RequestRecord> of) implements Field {
        @Override public Object value(RequestRecord r, long originNanos) { return of.applyAsLong(r); }
    }

    /** A count; -1 (unknown) is null. */
    public record Count(String name, ToIntFunction<RequestRecord> of) implements Field {
        @Override public Object value(RequestRecord r, long originNanos) { return count(of.applyAsInt(r)); }
    }

    public record Flag(String name, Predicate<RequestRecord> of) implements Field {
        @Override public Object value(RequestRecord r, long originNanos) { return of.test(r); }
    }

    public record Text(String name, Function<RequestRecord, String> of) implements Field {
        @Override public Object value(RequestRecord r, long originNanos) { return of.apply(r); }
    }

    /** A real number; NaN or infinite (undefined) is null. */
    public record Real(String name, ToDoubleFunction<RequestRecord> of) implements Field {
        @Override public Object value(RequestRecord r, long originNanos) { return finite(of.applyAsDouble(r)); }
    }

    /** A moment, in seconds since the origin; absent is null. */
    public record Moment(String name, ToLongFunction<RequestRecord> nanos) implements Field {
        @Override
        public Object value(RequestRecord r, long originNanos) {
            long t = nanos.applyAsLong(r);
            return t == ABSENT ? null : (t - originNanos) / 1e9;
        }
    }

    /** {@code itl_s}: the intervals between text chunks, in seconds. */
    public record Intervals(String name) implements Field {
        @Override
        public Object value(RequestRecord r, long originNanos) {
            double[] out = new double[r.interChunkCount()];
            for (int i = 0; i < out.length; i++) out[i] = r.interChunkSeconds(i);
            return out;
        }
    }

    /** {@code token_chunk_s}: every text chunk's arrival, in seconds since the origin. */
    public record ChunkMoments(String name) implements Field {
        @Override
        public Object value(RequestRecord r, long originNanos) {
            long[] t = r.timing().tokenChunkNanos();
            double[] out = new double[t.length];
            for (int i = 0; i < t.length; i++) out[i] = (t[i] - originNanos) / 1e9;
            return out;
        }
    }

    /** {@code phases_ms}: every {@link Phase}'s duration in milliseconds, null when not applicable. */
    public record PhasesMs(String name) implements Field {
        @Override
        public Object value(RequestRecord r, long originNanos) {
            Map<String, Double> out = new LinkedHashMap<>();
            for (Phase p : PHASES) out.put(p.name().toLowerCase(Locale.ROOT), finite(p.millis(r)));
            return out;
        }
    }

    private static final Phase[] PHASES = Phase.values();
    private static final String[] TOKEN_SOURCES = lowerNames(TokenSource.values());
    private static final String[] CACHE_SOURCES = lowerNames(CacheSource.values());

    /** Every field, in the order of both outputs. */
    public static final List<Field> ALL = List.of(
            new Whole("index", r -> r.position().index()),
            new Text("request_id", r -> r.position().requestId()),
            new Text("conversation_id", r -> r.position().conversationId()),
            new Whole("turn", r -> r.position().turnIndex()),
            new Flag("is_first_turn", r -> r.position().firstTurn()),
            new Flag("is_last_turn", r -> r.position().lastTurn()),
            new Flag("stream", r -> r.timing().stream()),
            new Flag("success", RequestRecord::success),
            new Text("error_class", r -> r.outcome().errorClass()),
            new Whole("http_status", r -> r.outcome().httpStatus()),
            new Text("error_message", r -> r.outcome().errorMessage()),
            new Text("finish_reason", r -> r.outcome().finishReason()),
            new Whole("start_epoch_ms", r -> r.timing().startEpochMillis()),
            new Moment("scheduled_s", r -> r.timing().scheduledNanos()),
            new Moment("start_s", r -> r.timing().startNanos()),
            new Moment("headers_s", r -> r.timing().headersNanos()),
            new Moment("first_chunk_s", r -> r.timing().firstChunkNanos()),
            new Moment("first_token_s", r -> r.timing().firstTokenNanos()),
            new Moment("end_s", r -> r.timing().endNanos()),
            new Flag("new_connection", r -> r.phases().newConnection()),
            new Moment("connect_start_s", r -> r.phases().connectStartNanos()),
            new Moment("dns_done_s", r -> r.phases().dnsDoneNanos()),
            new Moment("connect_done_s", r -> r.phases().connectDoneNanos()),
            new Moment("tls_done_s", r -> r.phases().tlsDoneNanos()),
            new Moment("write_start_s", r -> r.phases().writeStartNanos()),
            new Moment("written_s", r -> r.phases().writtenNanos()),
            new Moment("first_byte_s", r -> r.phases().firstByteNanos()),
            new PhasesMs("phases_ms"),
            new Real("latency_s", RequestRecord::latencySeconds),
            new Real("ttft_s", RequestRecord::ttftSeconds),
            new Real("first_chunk_latency_s", RequestRecord::firstChunkSeconds),
            new Real("tpot_s", RequestRecord::tpotSeconds),
            new Real("queue_delay_s", RequestRecord::queueDelaySeconds),
            new Real("tokens_per_chunk", RequestRecord::tokensPerChunk),
            new Intervals("itl_s"),
            new ChunkMoments("token_chunk_s"),
            new Count("prompt_tokens", r -> r.tokens().prompt()),
            new Count("completion_tokens", r -> r.tokens().completion()),
            new Count("cached_tokens", r -> r.tokens().cached()),
            new Text("cached_token_source", r -> r.tokens().cachedSource() == null ? null
                    : CACHE_SOURCES[r.tokens().cachedSource().ordinal()]),
            new Text("token_source", r -> r.tokens().source() == null ? null
                    : TOKEN_SOURCES[r.tokens().source().ordinal()]),
            new Count("target_prompt_tokens", r -> r.tokens().promptTarget()),
            new Count("synthesized_prompt_tokens", r -> r.tokens().promptSynth()),
            new Text("error_type", r -> r.outcome().errorType()),
            new Count("server_prompt_n", r -> r.serverTimings() == null ? -1 : r.serverTimings().promptN()),
            new Real("server_prompt_ms", r -> r.serverTimings() == null ? Double.NaN : r.serverTimings().promptMs()),
            new Count("server_predicted_n", r -> r.serverTimings() == null ? -1 : r.serverTimings().predictedN()),
            new Real("server_predicted_ms",
                    r -> r.serverTimings() == null ? Double.NaN : r.serverTimings().predictedMs()),
            new Count("server_cache_n", r -> r.serverTimings() == null ? -1 : r.serverTimings().cacheN()),
            new Flag("retried_stale_connection", RequestRecord::retriedStaleConnection),
            new Moment("stale_attempt_start_s", r -> r.phases().staleStartNanos()),
            new Text("cached_token_field", r -> r.tokens().cachedField()),
            new Moment("first_content_token_s", r -> r.timing().firstContentNanos()),
            new Real("ttfct_s", RequestRecord::ttfctSeconds),
            new Real("answer_tpot_s", RequestRecord::answerTpotSeconds),
            new Count("reasoning_tokens", r -> r.tokens().reasoning()),
            new Whole("retries", r -> r.outcome().retries()),
            new Real("retry_wait_s", r -> r.outcome().retryWaitNanos() / 1e9));

    /** The fields of {@code requests.jsonl}: all but {@code token_chunk_s}. */
    public static final List<Field> JSONL = ALL.stream().filter(f -> !(f instanceof ChunkMoments)).toList();

    /**
     * Fields the run history does not keep yet (no column): {@code --retry-on}'s count and wait. The export leaves
     * them out rather than show 0 for a request that was retried.
     */
    private static final java.util.Set<String> FILE_ONLY = java.util.Set.of("retries", "retry_wait_s");

    /** The fields of the run history's export: all but {@code phases_ms} and the file-only ones. */
    public static final List<Field> EXPORT = ALL.stream()
            .filter(f -> !(f instanceof PhasesMs) && !FILE_ONLY.contains(f.name())).toList();

    private RequestFields() {}

    /** Nanoseconds from an exported moment in seconds (exact: a double holds ns for 100 days). */
    public static long nanos(Double seconds) {
        return seconds == null ? ABSENT : Math.round(seconds * 1e9);
    }

    private static Long count(int v) {
        return v >= 0 ? (long) v : null;
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static String[] lowerNames(Enum<?>[] values) {
        String[] names = new String[values.length];
        for (Enum<?> v : values) names[v.ordinal()] = v.name().toLowerCase(Locale.ROOT);
        return names;
    }
}
