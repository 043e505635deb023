package io.unibench.sim;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.Iterator;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Decides the fault of each request: the {@code X-Unibench-Fault} header when present (validated, a bad value is a
 * 400 naming the field), else one seeded draw against the configured rates. Thread-safe; the draws follow the
 * order in which requests arrive, so a single-connection test sees a reproducible sequence.
 *
 * <p>Header: a JSON object {@code {"type": ID, "after_chunks": N, "first_chunk_delay_ms": MS, "chunk_delay_ms": MS,
 * "retry_after_s": S, "finish_reason": BOOL}}, every field optional ({@code type} "none" or absent = no fault, only
 * the delays). The fields not given take the {@code --fault-*} settings where the type needs them.
 */
final class FaultPlanner {
    static final String HEADER = "X-Unibench-Fault";
    static final long MAX_FIRST_CHUNK_DELAY_MS = 600_000;
    static final long MAX_CHUNK_DELAY_MS = 60_000;
    static final int MAX_AFTER_CHUNKS = 1_000_000;
    static final int MAX_RETRY_AFTER_S = 86_400;

    private final ObjectMapper mapper;
    private final SimConfig.Faults faults;
    private final long seed;
    private final AtomicLong draws = new AtomicLong();
    private final FaultKind[] kinds;
    private final double[] cumulative;

    FaultPlanner(ObjectMapper mapper, SimConfig.Faults faults, long seed) {
        this.mapper = mapper;
        this.faults = faults;
        this.seed = seed;
        this.kinds = faults.rates().keySet().stream().sorted().toArray(FaultKind[]::new);
        this.cumulative = new double[kinds.length];
        double sum = 0;
        for (int i = 0; i < kinds.length; i++) cumulative[i] = sum += faults.rate(kinds[i]);
    }

    /** The fault of a request whose header value is {@code header} (null when absent). */
    FaultSpec plan(String header) {
        if (header != null) return parse(header);
        if (kinds.length == 0) return FaultSpec.NONE;
        long n = draws.getAndIncrement();
        double u = (Mix.mix64(Mix.combine(seed ^ 0xFA17_FA17L, n)) >>> 11) * 0x1.0p-53;
        for (int i = 0; i < kinds.length; i++) if (u < cumulative[i]) return defaults(kinds[i]);
        return FaultSpec.NONE;
    }

    private FaultSpec defaults(FaultKind kind) {
        return new FaultSpec(kind, kind == FaultKind.SLOW_FIRST_CHUNK ? faults.firstChunkDelayMs() : 0,
                kind == FaultKind.SLOW_CHUNKS ? faults.chunkDelayMs() : 0, faults.afterChunks(), faults.retryAfterS(),
                true);
    }

    private FaultSpec parse(String header) {
        JsonNode root;
        try {
            root = mapper.readTree(header);
        } catch (JacksonException e) {
            throw bad(null, "is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) throw bad(null, "must be a JSON object such as {\"type\":\"429\"}");
        FaultKind kind = null;
        JsonNode type = root.get("type");
        if (type != null && !type.isNull()) {
            if (!type.isTextual()) throw bad("type", "must be a string");
            if (!type.asText().equals("none")) {
                kind = FaultKind.byId(type.asText());
                if (kind == null) throw bad("type", "'" + type.asText() + "' is not one of none, " + ids());
            }
        }
        FaultSpec d = kind == null ? FaultSpec.NONE : defaults(kind);
        long firstDelay = d.firstChunkDelayMs();
        long chunkDelay = d.chunkDelayMs();
        int after = d.afterChunks();
        int retry = d.retryAfterS();
        boolean finish = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "type" -> {}
                case "first_chunk_delay_ms" -> firstDelay = bounded(e.getKey(), v, MAX_FIRST_CHUNK_DELAY_MS);
                case "chunk_delay_ms" -> chunkDelay = bounded(e.getKey(), v, MAX_CHUNK_DELAY_MS);
                case "after_chunks" -> after = (int) bounded(e.getKey(), v, MAX_AFTER_CHUNKS);
                case "retry_after_s" -> retry = (int) bounded(e.getKey(), v, MAX_RETRY_AFTER_S);
                case "finish_reason" -> {
                    if (!v.isBoolean()) throw bad(e.getKey(), "must be true or false");
                    finish = v.booleanValue();
                }
                default -> throw bad(e.getKey(), "is not a fault field (type, after_chunks, first_chunk_delay_ms, "
                        + "chunk_delay_ms, retry_after_s, finish_reason)");
            }
        }
        return new FaultSpec(kind, firstDelay, chunkDelay, after, retry, finish);
    }

    private static long bounded(String field, JsonNode v, long max) {
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0 || v.longValue() > max) {
            throw bad(field, "must be an integer in 0.." + max + ", got " + v);
        }
        return v.longValue();
    }

    static String ids() {
        StringJoiner j = new StringJoiner(", ");
        for (FaultKind k : FaultKind.values()) j.add(k.id());
        return j.toString();
    }

    private static ApiException bad(String field, String problem) {
        String name = field == null ? HEADER : HEADER + "." + field;
        return ApiException.badRequest(name, "Header " + name + " " + problem);
    }
}
