package io.unibench.sim;

/**
 * Duration of one engine step (continuous batching, after BLIS/Vidur's batch-composition models, reduced to three
 * coefficients plus prefill):
 * <pre>
 *   step = [d &gt; 0] · (itl + perSeq · (d − 1) + per1kContext · C / 1000) + prefillPerToken · P
 * </pre>
 * d = decoding sequences in the step, C = their context tokens (prompt + generated so far) summed, P = prompt tokens
 * prefilled in the step (a chunk of at most the step's token budget). With one sequence and no context coefficient
 * a decode step takes exactly {@code itl}; a prompt prefilled alone takes {@code prefillPerToken} per uncached token,
 * so at low load TTFT = ttft + uncached × prefill and tokens come every itl, as the first simulator promised.
 * Prefill tokens in a step slow every decoding sequence in it (vLLM's "prefill stall"). All in milliseconds.
 */
record StepTimeModel(double itlMs, double decodeMsPerSeq, double decodeMsPer1kContext, double prefillMsPerToken) {

    static StepTimeModel of(SimConfig c) {
        return new StepTimeModel(c.itlMs(), c.scheduling().decodeMsPerSeq(), c.scheduling().decodeMsPer1kContext(),
                c.prefillMsPerToken());
    }

    long stepNanos(int decoding, long contextTokens, long prefillTokens) {
        double ms = prefillMsPerToken * prefillTokens;
        if (decoding > 0) ms += itlMs + decodeMsPerSeq * (decoding - 1) + decodeMsPer1kContext * contextTokens / 1000.0;
        return Math.round(ms * 1_000_000.0);
    }
}
