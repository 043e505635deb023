package io.unibench.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a run's figures depend on besides the server, for ours and imported runs alike: the tool and how it defines
 * TTFT and TPOT, streaming, open or closed loop, output length control, who counted the prompt and the output tokens
 * ({@link TokenCount}, each side on its own: vLLM counts prompts with its tokenizer and outputs from the server's
 * usage), the prompt length
 * distribution, warm-up, dataset and seed (shown, never a refusal: it picks prompts, the distribution says what they
 * are). Null is "not known" (the source did not say), never a default. Two runs whose fingerprints differ in something that moves a metric get no verdict on it
 * ({@link #refusals}); docs/import.md has the table of each tool's definitions.
 */
public record WorkloadFingerprint(String tool, String ttftDefinition, String tpotDefinition, Boolean stream,
                                  String loop, Integer maxTokens, Boolean ignoreEos, TokenCount promptTokens,
                                  TokenCount outputTokens, String promptLengths, String warmup, String dataset,
                                  Long seed) {
    /** The fields of the first version (no prompt lengths, warm-up, dataset or seed: unknown). */
    public WorkloadFingerprint(String tool, String ttftDefinition, String tpotDefinition, Boolean stream, String loop,
                               Integer maxTokens, Boolean ignoreEos, TokenCount promptTokens, TokenCount outputTokens) {
        this(tool, ttftDefinition, tpotDefinition, stream, loop, maxTokens, ignoreEos, promptTokens, outputTokens, null,
                null, null, null);
    }

    /**
     * Who counted one side's tokens (prompt or output), as the tool's source does it.
     *
     * @param source   {@link #SERVER} (the server's {@code usage}, or llama.cpp's own counts), {@link #TOKENIZER}
     *                 (the tool's own tokenizer), {@link #ESTIMATE} (from characters), or a mix as the run counted it
     * @param fallback with {@link #SERVER}: what counts when the server sends no usage ({@code tokenizer stub}, or
     *                 null: nothing / not known); with {@link #TOKENIZER}: the tokenizer's name, or null (not known)
     */
    public record TokenCount(String source, String fallback) {
        public static final String SERVER = "server usage";
        public static final String TOKENIZER = "tokenizer";
        public static final String ESTIMATE = "estimated from characters";

        public static TokenCount server(String fallback) {
            return new TokenCount(SERVER, fallback);
        }

        public static TokenCount tokenizer(String name) {
            return new TokenCount(TOKENIZER, name);
        }

        /**
         * Counted differently: another source, or two tokenizers of different names. What the server's usage falls
         * back to is no difference (it counts only where a server sends no usage, which the files do not say).
         */
        boolean differs(TokenCount o) {
            if (!source.equals(o.source)) return true;
            return TOKENIZER.equals(source) && fallback != null && o.fallback != null && !fallback.equals(o.fallback);
        }

        @Override
        public String toString() {
            if (TOKENIZER.equals(source)) return fallback == null ? "the tool's tokenizer" : "tokenizer " + fallback;
            if (SERVER.equals(source) && fallback != null) return SERVER + " (else " + fallback + ")";
            return source;
        }
    }

    /** GuideLLM's TPOT (schemas/request_stats.py): the first token's time is in it. */
    public static final String TPOT_INCLUDING_FIRST = "(last token − start) / output tokens (first token included)";

    /**
     * A prompt length distribution as one comparable text: {@code fixed N tokens} when it has one value (a range of
     * one, or no spread), else {@code uniform MIN–MAX tokens} or {@code normal mean M sd S[, MIN–MAX] tokens}.
     */
    public static String uniformLengths(Number min, Number max) {
        if (min == null || max == null) return null;
        return min.longValue() == max.longValue() ? "fixed " + min.longValue() + " tokens"
                : "uniform " + min.longValue() + "–" + max.longValue() + " tokens";
    }

    /** See {@link #uniformLengths}; {@code sd} null or 0 is a fixed length. */
    public static String normalLengths(Number mean, Number sd, Number min, Number max) {
        if (mean == null) return null;
        if (sd == null || sd.doubleValue() == 0) return "fixed " + Math.round(mean.doubleValue()) + " tokens";
        return "normal mean " + Math.round(mean.doubleValue()) + " sd " + Math.round(sd.doubleValue())
                + (min != null && max != null ? " in " + min.longValue() + "–" + max.longValue() : "") + " tokens";
    }
    /** Our TTFT: the first chunk carrying text; a role-only chunk is not a token. */
    public static final String TTFT_FIRST_TOKEN = "first chunk with text (role-only chunk excluded)";
    /** evalscope's, vLLM's and AIPerf's: the first chunk of any kind. */
    public static final String TTFT_FIRST_CHUNK = "first chunk of any kind (role-only chunk included)";
    /** (latency − TTFT) / (output tokens − 1). */
    public static final String TPOT_AFTER_FIRST = "(latency − TTFT) / (output tokens − 1)";
    /** The verdict of a metric whose runs are not comparable. */
    public static final String REFUSED = "refused";

    /** One difference that moves a metric: the metric columns ("TTFT (ms)", …) it refuses, and why. */
    public record Refusal(String field, List<String> columns, String why) {}

    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tool", tool);
        m.put("ttft", ttftDefinition);
        m.put("tpot", tpotDefinition);
        m.put("stream", stream);
        m.put("loop", loop);
        m.put("max_tokens", maxTokens);
        m.put("ignore_eos", ignoreEos);
        m.put("prompt_tokens", promptTokens == null ? null : promptTokens.toString());
        m.put("output_tokens", outputTokens == null ? null : outputTokens.toString());
        m.put("prompt_lengths", promptLengths);
        m.put("warmup", warmup);
        m.put("dataset", dataset);
        m.put("seed", seed);
        return m;
    }

    /**
     * What keeps B's figures from being compared with A's: a field both know and that differs, with the metric
     * columns it moves. Unknown on one side is no refusal (the page shows it as unknown).
     */
    public static List<Refusal> refusals(WorkloadFingerprint a, WorkloadFingerprint b) {
        List<Refusal> out = new ArrayList<>();
        List<String> ttft = List.of(PercentileRow.TTFT);
        List<String> tpot = List.of(PercentileRow.TPOT);
        List<String> all = List.of(PercentileRow.TTFT, PercentileRow.TPOT, PercentileRow.LATENCY);
        if (differ(a.ttftDefinition, b.ttftDefinition)) {
            out.add(new Refusal("ttft", List.of(PercentileRow.TTFT, PercentileRow.TPOT),
                    "B's TTFT is the " + b.ttftDefinition + "; A's the " + a.ttftDefinition
                            + " (TPOT counts from it)"));
        }
        if (differ(a.tpotDefinition, b.tpotDefinition)) {
            out.add(new Refusal("tpot", tpot, "B's TPOT is " + b.tpotDefinition + "; A's " + a.tpotDefinition));
        }
        if (differ(a.stream, b.stream)) {
            out.add(new Refusal("stream", all, "A " + (a.stream ? "streamed" : "did not stream") + ", B "
                    + (b.stream ? "streamed" : "did not stream")));
        }
        if (differ(a.loop, b.loop)) {
            out.add(new Refusal("loop", all, "A ran " + a.loop + ", B " + b.loop
                    + " (queueing differs)"));
        }
        if (differ(a.maxTokens, b.maxTokens)) {
            out.add(new Refusal("max_tokens", List.of(PercentileRow.LATENCY), "A's max_tokens is " + a.maxTokens
                    + ", B's " + b.maxTokens));
        }
        if (differ(a.ignoreEos, b.ignoreEos)) {
            out.add(new Refusal("ignore_eos", List.of(PercentileRow.LATENCY), "A " + (a.ignoreEos ? "ignored" : "kept")
                    + " EOS, B " + (b.ignoreEos ? "ignored" : "kept") + " it (output lengths differ)"));
        }
        if (differ(a.promptLengths, b.promptLengths)) {
            out.add(new Refusal("prompt_lengths", all, "A's prompts are " + a.promptLengths + ", B's "
                    + b.promptLengths + " (prefill differs)"));
        }
        if (a.outputTokens != null && b.outputTokens != null && a.outputTokens.differs(b.outputTokens)) {
            out.add(new Refusal("output_tokens", OUTPUT_TOKEN_FIGURES, "A's output tokens are " + shown(a.outputTokens)
                    + ", B's " + shown(b.outputTokens) + " (TPOT and output token figures differ)"));
        }
        if (a.promptTokens != null && b.promptTokens != null && a.promptTokens.differs(b.promptTokens)) {
            out.add(new Refusal("prompt_tokens", PROMPT_TOKEN_FIGURES, "A's prompt tokens are " + shown(a.promptTokens)
                    + ", B's " + shown(b.promptTokens) + " (prompt token figures differ)"));
        }
        if (differ(a.warmup, b.warmup)) {
            out.add(new Refusal("warmup", List.of(PercentileRow.TTFT, PercentileRow.LATENCY), "A's warm-up was "
                    + a.warmup + ", B's " + b.warmup + " (cold caches and connections count in one)"));
        }
        if (differ(a.dataset, b.dataset)) {
            out.add(new Refusal("dataset", all, "A's dataset is " + a.dataset + ", B's " + b.dataset));
        }
        return out;
    }

    /** The figures that divide or sum output token counts (refused where the two runs counted them differently). */
    public static final List<String> OUTPUT_TOKEN_FIGURES = List.of(PercentileRow.TPOT, Summary.OUTPUT_THROUGHPUT,
            Summary.TOTAL_THROUGHPUT, Summary.AVG_OUTPUT_TOKENS, Summary.TOTAL_OUTPUT_TOKENS, Summary.AVG_ITL_PER_TOKEN,
            Summary.AVG_DECODED_TOK_PER_ITER);
    /** The figures that divide or sum prompt token counts. */
    public static final List<String> PROMPT_TOKEN_FIGURES = List.of(Summary.AVG_INPUT_TOKENS,
            Summary.TOTAL_INPUT_TOKENS, Summary.INPUT_THROUGHPUT, Summary.TOTAL_THROUGHPUT);

    /** "the server's usage", "counted by tokenizer qwen-plus", …: the refusal's words. */
    private static String shown(TokenCount t) {
        return switch (t.source()) {
            case TokenCount.SERVER -> "the server's usage";
            case TokenCount.TOKENIZER -> "counted by " + t;
            default -> t.source();
        };
    }

    private static boolean differ(Object a, Object b) {
        return a != null && b != null && !Objects.equals(a, b);
    }
}
