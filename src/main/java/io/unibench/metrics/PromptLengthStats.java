package io.unibench.metrics;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How close synthesized prompts came to their target lengths (records with a {@code promptTargetTokens}; multi-turn:
 * each turn's new message), as the client's tokenizer counts them. evalscope's random prompts re-tokenize longer than
 * asked; this makes any such miss visible. The report names that tokenizer: a model's own tokenizer may count the
 * same text quite differently. Thread-safe.
 */
public final class PromptLengthStats implements RecordSink {
    private final String tokenizer;
    private long requests;
    private long exact;
    private long targetSum;
    private long actualSum;
    private long absDiffSum;
    private long maxAbsDiff;

    /** @param tokenizer name of the tokenizer that synthesized and counted the prompts; null when unknown */
    public PromptLengthStats(String tokenizer) {
        this.tokenizer = tokenizer;
    }

    public PromptLengthStats() {
        this(null);
    }

    @Override
    public synchronized void accept(RequestRecord r) {
        if (r.tokens().promptTarget() < 0 || r.tokens().promptSynth() < 0) return;
        requests++;
        long diff = (long) r.tokens().promptSynth() - r.tokens().promptTarget();
        if (diff == 0) exact++;
        targetSum += r.tokens().promptTarget();
        actualSum += r.tokens().promptSynth();
        absDiffSum += Math.abs(diff);
        maxAbsDiff = Math.max(maxAbsDiff, Math.abs(diff));
    }

    public synchronized long requests() { return requests; }

    public synchronized long exact() { return exact; }

    /**
     * Keys added to {@code benchmark_summary.json}; empty when no prompt had a target:
     * {@code Synthesized Prompts, Prompts At Target Length, Avg Target Prompt Tokens, Avg Synthesized Prompt Tokens,
     * Avg Abs Prompt Length Error, Max Abs Prompt Length Error}, and {@code Prompt Length Tokenizer} when known.
     */
    public synchronized Map<String, Object> summaryKeys() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (requests == 0) return m;
        m.put("Synthesized Prompts", requests);
        m.put("Prompts At Target Length", exact);
        m.put("Avg Target Prompt Tokens", Rounding.round((double) targetSum / requests, 4));
        m.put("Avg Synthesized Prompt Tokens", Rounding.round((double) actualSum / requests, 4));
        m.put("Avg Abs Prompt Length Error", Rounding.round((double) absDiffSum / requests, 4));
        m.put("Max Abs Prompt Length Error", maxAbsDiff);
        if (tokenizer != null) m.put("Prompt Length Tokenizer", tokenizer);
        return m;
    }

    /**
     * One line for the report, e.g. {@code 120/120 at target length by cl100k_base (mean |error| 0, max 0 tokens)};
     * null when none had a target.
     */
    public synchronized String describe() {
        if (requests == 0) return null;
        return exact + "/" + requests + " at target length" + (tokenizer == null ? "" : " by " + tokenizer) + " (mean |error| "
                + Rounding.round((double) absDiffSum / requests, 2) + ", max " + maxAbsDiff + " tokens)";
    }
}
