package io.unibench.scenario;

import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;

/**
 * Token totals of successful requests for pricing: uncached input, cached input, output. Failed requests carry no
 * server usage and cost nothing here (a provider that bills failures is not modelled). Thread-safe.
 */
public final class CostMeter implements RecordSink {
    private long requests;
    private long uncachedInput;
    private long cachedInput;
    private long output;

    @Override
    public synchronized void accept(RequestRecord r) {
        if (!r.success()) return;
        long prompt = Math.max(r.promptTokens(), 0);
        long cached = r.cachedTokenSource() == RequestRecord.CacheSource.SERVER ? Math.max(r.cachedTokens(), 0) : 0;
        requests++;
        uncachedInput += Math.max(prompt - cached, 0);
        cachedInput += Math.min(cached, prompt);
        output += Math.max(r.completionTokens(), 0);
    }

    synchronized Totals totals() {
        return new Totals(requests, uncachedInput, cachedInput, output);
    }

    /** Sums over successful requests. */
    public record Totals(long requests, long uncachedInput, long cachedInput, long output) {
        Totals plus(Totals o) {
            return new Totals(requests + o.requests, uncachedInput + o.uncachedInput, cachedInput + o.cachedInput,
                    output + o.output);
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
