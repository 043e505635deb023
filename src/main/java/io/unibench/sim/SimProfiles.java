package io.unibench.sim;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Named presets for {@code unibench sim --profile NAME}: knob changes applied on top of {@link SimConfig#defaults()}
 * (a profile file and explicit flags then override them). The magnitudes are plausible shapes, not measurements of
 * a particular GPU: the simulator reproduces protocol and scheduling behaviour, not a model's real speed.
 */
public final class SimProfiles {
    private static final Map<String, Profile> PROFILES = build();

    /** A preset: its one-line description and the knobs it changes. */
    public record Profile(String description, Map<String, Object> knobs) {}

    private SimProfiles() {}

    public static Map<String, Profile> all() { return PROFILES; }

    /** The knob changes of {@code name}, or null when there is no such profile. */
    public static Map<String, Object> knobs(String name) {
        Profile p = PROFILES.get(name);
        return p == null ? null : p.knobs();
    }

    private static Map<String, Profile> build() {
        Map<String, Profile> m = new LinkedHashMap<>();
        m.put("default", new Profile("the defaults: a fast small model, 256 sequences, 1M tokens of KV", Map.of()));
        m.put("instant", new Profile("no latency at all and no admission limits: to benchmark a client or gateway "
                + "without the target in the way", ordered(
                "ttft-ms", 0, "prefill-ms-per-token", 0, "itl-ms", 0, "decode-ms-per-seq", 0,
                "max-num-seqs", 1_000_000, "max-num-batched-tokens", 100_000_000, "max-queue", 1_000_000,
                "max-queue-wait-ms", 0, "kv-cache-blocks", 0)));
        m.put("small-gpu", new Profile("an 8B model on one 24 GB GPU: 64 sequences, 32k tokens of KV, slow decode, "
                + "requests queue early", ordered(
                "ttft-ms", 15, "prefill-ms-per-token", 0.08, "itl-ms", 14, "decode-ms-per-seq", 0.08,
                "decode-ms-per-1k-context", 0.02, "max-num-seqs", 64, "max-num-batched-tokens", 2048,
                "kv-cache-blocks", 2048, "max-model-len", 8192, "max-queue", 512, "max-queue-wait-ms", 30_000)));
        m.put("h100-8b", new Profile("an 8B model on one 80 GB GPU: 256 sequences, 500k tokens of KV", ordered(
                "ttft-ms", 10, "prefill-ms-per-token", 0.025, "itl-ms", 7, "decode-ms-per-seq", 0.03,
                "decode-ms-per-1k-context", 0.005, "max-num-seqs", 256, "max-num-batched-tokens", 8192,
                "kv-cache-blocks", 32_768, "max-model-len", 32_768)));
        m.put("flaky", new Profile("the defaults plus a few percent of every kind of failure: to test a gateway's "
                + "error handling", ordered(
                "fault-rate-429", 0.03, "fault-rate-503", 0.02, "fault-rate-500", 0.01, "fault-rate-502", 0.01,
                "fault-rate-fail-midstream", 0.02, "fault-rate-disconnect", 0.02, "fault-rate-slow-first-chunk", 0.03,
                "fault-rate-slow-chunks", 0.02, "fault-rate-malformed-json", 0.01, "fault-rate-missing-done", 0.01,
                "fault-rate-error-body", 0.01, "fault-rate-empty-choices", 0.01)));
        return java.util.Collections.unmodifiableMap(m);
    }

    private static Map<String, Object> ordered(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return java.util.Collections.unmodifiableMap(m);
    }
}
