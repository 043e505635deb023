package io.unibench.metrics;

/**
 * What one request is billed for, the one rule of the cost report ({@link CostMeter}) and the run's cost
 * budget ({@code engine.RunBudget}): a success its uncached input, its cached input (only when the server said how
 * many were cached) and its output; a reply that began (HTTP 200) and then failed or was cancelled its counted input,
 * as uncached, and the output streamed before the end; a refusal or a request broken before a reply began nothing.
 *
 * @param finished true for a success, false for a reply that began and did not finish
 */
public record BilledTokens(long uncachedInput, long cachedInput, long output, boolean finished) {

    /** The request's billed tokens, or null when it is not billed at all. */
    public static BilledTokens of(RequestRecord r) {
        Tokens t = r.tokens();
        long prompt = Math.max(t.prompt(), 0);
        long output = Math.max(t.completion(), 0);
        if (!r.success()) {
            return r.outcome().httpStatus() == 200 ? new BilledTokens(prompt, 0, output, false) : null;
        }
        long cached = t.cachedSource() == RequestRecord.CacheSource.SERVER ? Math.max(t.cached(), 0) : 0;
        return new BilledTokens(Math.max(prompt - cached, 0), Math.min(cached, prompt), output, true);
    }
}
