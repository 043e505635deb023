package io.unibench.metrics;

/** Token prices: what uncached input, cached input and output tokens cost ({@link CostMeter.Totals} prices with it). */
public interface TokenPrice {
    /** The cost of these tokens. */
    double cost(long uncachedInput, long cachedInput, long output);
}
