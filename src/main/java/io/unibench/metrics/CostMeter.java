package io.unibench.metrics;

/**
 * Token totals of successful requests for pricing: uncached input, cached input, output. A success whose server sent
 * no usage is priced with the client's token counts and counted in {@link Totals#estimatedRequests()}, so that
 * reports say the cost is estimated. The tokens of requests whose reply began (HTTP 200) but did not succeed (failed
 * or cancelled mid-stream: the prompt as counted, the tokens streamed before the end) are kept apart in
 * {@link Totals#unfinished()}; refusals (429, 5xx) are not billed. The failure-inclusive cost and the cost per
 * completed task count them (an estimate: providers differ in what they bill for a failure). Thread-safe.
 */
public final class CostMeter implements RecordSink {
    private long requests;
    private long uncachedInput;
    private long cachedInput;
    private long output;
    private long estimated;
    private long unfinishedRequests;
    private long unfinishedInput;
    private long unfinishedOutput;

    @Override
    public synchronized void accept(RequestRecord r) {
        BilledTokens billed = BilledTokens.of(r);
        if (billed == null) return; // refused or broken before a reply began: not billed
        if (!billed.finished()) {
            unfinishedRequests++;
            unfinishedInput += billed.uncachedInput();
            unfinishedOutput += billed.output();
            return;
        }
        requests++;
        uncachedInput += billed.uncachedInput();
        cachedInput += billed.cachedInput();
        output += billed.output();
        Tokens t = r.tokens();
        if (t.source() != RequestRecord.TokenSource.SERVER && t.source() != RequestRecord.TokenSource.SERVER_TIMINGS) estimated++;
    }

    public synchronized Totals totals() {
        return new Totals(requests, uncachedInput, cachedInput, output, estimated,
                new Unfinished(unfinishedRequests, unfinishedInput, unfinishedOutput));
    }

    /**
     * The tokens of the requests that did not succeed, as the client counted them (input priced as uncached).
     *
     * @param requests failed or cancelled requests
     */
    public record Unfinished(long requests, long input, long output) {
        public static final Unfinished NONE = new Unfinished(0, 0, 0);

        Unfinished plus(Unfinished o) {
            return new Unfinished(requests + o.requests, input + o.input, output + o.output);
        }
    }

    /**
     * Sums over successful requests.
     *
     * @param estimatedRequests those of them whose token counts are the client's (the server sent no usage)
     */
    public record Totals(long requests, long uncachedInput, long cachedInput, long output, long estimatedRequests,
                         Unfinished unfinished) {
        public Totals {
            if (unfinished == null) unfinished = Unfinished.NONE;
        }

        /** Totals of successes only. */
        public Totals(long requests, long uncachedInput, long cachedInput, long output, long estimatedRequests) {
            this(requests, uncachedInput, cachedInput, output, estimatedRequests, Unfinished.NONE);
        }

        /** Totals whose counts all came from the server. */
        public Totals(long requests, long uncachedInput, long cachedInput, long output) {
            this(requests, uncachedInput, cachedInput, output, 0);
        }

        Totals plus(Totals o) {
            return new Totals(requests + o.requests, uncachedInput + o.uncachedInput, cachedInput + o.cachedInput,
                    output + o.output, estimatedRequests + o.estimatedRequests, unfinished.plus(o.unfinished));
        }

        /** The cost of every request, the ones that did not succeed included; NaN without a price. */
        public double costIncludingFailures(TokenPrice price) {
            return price == null ? Double.NaN
                    : price.cost(uncachedInput + unfinished.input(), cachedInput, output + unfinished.output());
        }

        /** Cost per completed task: every request's cost over the successful ones; NaN without price or successes. */
        public double perSuccessfulRequest(TokenPrice price) {
            return requests == 0 ? Double.NaN : costIncludingFailures(price) / requests;
        }

        /** Every request's cost over the conversations that ran to their end; NaN without price or any. */
        public double perCompletedConversation(TokenPrice price, Long completed) {
            return completed == null || completed == 0 ? Double.NaN : costIncludingFailures(price) / completed;
        }

        /** True when some of the priced token counts are the client's, not the server's. */
        public boolean estimated() {
            return estimatedRequests > 0;
        }

        /** Total cost; NaN without a price. */
        public double cost(TokenPrice price) {
            return price == null ? Double.NaN : price.cost(uncachedInput, cachedInput, output);
        }

        /** Cost per 1,000 successful requests; NaN without price or requests. */
        public double per1000Requests(TokenPrice price) {
            return requests == 0 ? Double.NaN : cost(price) / requests * 1000;
        }

        /** Cost per million output tokens (input included: what a million generated tokens cost in this workload). */
        public double perMillionOutput(TokenPrice price) {
            return output == 0 ? Double.NaN : cost(price) / output * 1e6;
        }
    }
}
