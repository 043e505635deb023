package io.unibench.metrics;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The service-level objectives of goodput (DistServe's definition, vLLM's {@code --goodput}): a request is good when
 * it succeeded and meets every objective given. Each bound is in milliseconds; {@code null} = not constrained.
 *
 * <p>The figures are those of the per-request table: TTFT to the first token carrying text, TPOT (latency − TTFT) /
 * (output − 1), E2EL the whole latency, all measured from the send (as vLLM measures them). A reply of ≤ 1 token has
 * no TPOT and meets the TPOT bound (vLLM counts its TPOT as 0); a success without any token misses a TTFT bound.
 *
 * @param ttftMs bound on time to first token
 * @param tpotMs bound on time per output token after the first
 * @param e2elMs bound on end-to-end latency
 */
public record GoodputSlo(Double ttftMs, Double tpotMs, Double e2elMs) {

    public GoodputSlo {
        if (ttftMs == null && tpotMs == null && e2elMs == null) {
            throw new IllegalArgumentException("goodput needs at least one objective");
        }
    }

    /** True when the request succeeded and meets every objective. */
    public boolean met(RequestRecord r) {
        if (!r.success()) return false;
        if (ttftMs != null && !(r.ttftSeconds() * 1000 <= ttftMs)) return false;
        if (tpotMs != null) {
            double tpot = r.tpotSeconds();
            if (!Double.isNaN(tpot) && !(tpot * 1000 <= tpotMs)) return false;
        }
        return e2elMs == null || r.latencySeconds() * 1000 <= e2elMs;
    }

    /** vLLM's spelling, e.g. {@code ttft:500 tpot:50} (milliseconds). */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Double> e : bounds().entrySet()) {
            if (!sb.isEmpty()) sb.append(' ');
            sb.append(e.getKey()).append(':').append(plain(e.getValue()));
        }
        return sb.toString();
    }

    /** The objectives given, by vLLM's names ({@code ttft}, {@code tpot}, {@code e2el}), in milliseconds. */
    public Map<String, Double> bounds() {
        Map<String, Double> m = new LinkedHashMap<>();
        if (ttftMs != null) m.put("ttft", ttftMs);
        if (tpotMs != null) m.put("tpot", tpotMs);
        if (e2elMs != null) m.put("e2el", e2elMs);
        return m;
    }

    private static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
