package io.unibench.scenario;

import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.Tokens;

/**
 * Token totals of successful requests for pricing: uncached input, cached input, output. Failed requests carry no
 * server usage and cost nothing here (a provider that bills failures is not modelled). A success whose server sent no
 * usage is priced with the client's token counts and counted in {@link Totals#estimatedRequests()}, so that reports
 * say the cost is estimated. Thread-safe.
 */
public final class CostMeter implements RecordSink {
    private long requests;
    private long uncachedInput;
    private long cachedInput;
    private long output;
    private long estimated;

    @Override
    public synchronized void accept(RequestRecord r) {
        if (!r.success()) return;
        Tokens t = r.tokens();
        long prompt = Math.max(t.prompt(), 0);
        long cached = t.cachedSource() == RequestRecord.CacheSource.SERVER ? Math.max(t.cached(), 0) : 0;
        requests++;
        uncachedInput += Math.max(prompt - cached, 0);
        cachedInput += Math.min(cached, prompt);
        output += Math.max(t.completion(), 0);
        if (t.source() != RequestRecord.TokenSource.SERVER) estimated++;
    }

    synchronized Totals totals() {
        return new Totals(requests, uncachedInput, cachedInput, output, estimated);
    }

    /**
     * Sums over successful requests.
     *
     * @param estimatedRequests those of them whose token counts are the client's (the server sent no usage)
     */
    public record Totals(long requests, long uncachedInput, long cachedInput, long output, long estimatedRequests) {
        /** Totals whose counts all came from the server. */
        public Totals(long requests, long uncachedInput, long cachedInput, long output) {
            this(requests, uncachedInput, cachedInput, output, 0);
        }

        Totals plus(Totals o) {
            return new Totals(requests + o.requests, uncachedInput + o.uncachedInput, cachedInput + o.cachedInput,
                    output + o.output, estimatedRequests + o.estimatedRequests);
        }

        /** True when some of the priced token counts are the client's, not the server's. */
        public boolean estimated() {
            return estimatedRequests > 0;
        }

        /** Total cost; NaN without a price. */
        public double cost(BenchConfig.Price price) {
            return price == null ? Double.NaN : price.cost(uncachedInput, cachedInput, output);
        }

        /** Cost per 1,000 successful requests; NaN without price or requests. */
        public double per1000Requests(BenchConfig.Price price) {
            return requests == 0 ? Double.NaN : cost(price) / requests * 1000;
        }

        /** Cost per million output tokens (input included: what a million generated tokens cost in this workload). */
        public double perMillionOutput(BenchConfig.Price price) {
            return output == 0 ? Double.NaN : cost(price) / output * 1e6;
        }
    }
}
