package io.unibench.engine;

import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.BilledTokens;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.Tokens;

import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * {@code --max-total-tokens} and {@code --max-cost}: the run's token and cost budget, over every point and target.
 * Tokens are every request's prompt + completion as its record counts them (a refusal has none); the cost is what
 * {@link BilledTokens} bills, the rule of the cost report too, at the point's target's {@link RunSpec.Price}. Once a total reaches its limit, {@code reached} is told once, with the line the
 * report shows ({@code budget reached: 10,012 of 10,000 tokens}); the session runner then stops the run as Ctrl-C
 * does (nothing new is sent, what is in flight is cancelled, the report is partial). Thread-safe.
 */
final class RunBudget {
    private final Long maxTokens;
    private final Double maxCost;
    private final Consumer<String> reached;
    private final ReentrantLock lock = new ReentrantLock();
    private long tokens; // guarded by lock
    private double cost; // guarded by lock
    private boolean told; // guarded by lock

    RunBudget(RunSpec.Limits limits, Consumer<String> reached) {
        this.maxTokens = limits.maxTotalTokens();
        this.maxCost = limits.maxCost();
        this.reached = reached;
    }

    /** The sink of a point against a target priced {@code price} (null: unpriced, its cost counts 0). */
    RecordSink sink(RunSpec.Price price) {
        return record -> add(record, price);
    }

    private void add(RequestRecord r, RunSpec.Price price) {
        Tokens t = r.tokens();
        long prompt = Math.max(t.prompt(), 0);
        long output = Math.max(t.completion(), 0);
        BilledTokens billed = BilledTokens.of(r);
        double c = price == null || billed == null ? 0
                : price.cost(billed.uncachedInput(), billed.cachedInput(), billed.output());
        String line = null;
        lock.lock();
        try {
            tokens += prompt + output;
            cost += c;
            if (!told) {
                if (maxTokens != null && tokens >= maxTokens) {
                    line = String.format(Locale.ROOT, "budget reached: %,d of %,d tokens", tokens, maxTokens);
                } else if (maxCost != null && cost >= maxCost) {
                    line = String.format(Locale.ROOT, "budget reached: cost %s of %s", amount(cost), amount(maxCost));
                }
                told = line != null;
            }
        } finally {
            lock.unlock();
        }
        if (line != null) reached.accept(line);
    }

    /** An amount to 6 significant digits, without trailing zeros ({@code 0.000105}, {@code 2.5}). */
    static String amount(double v) {
        return new java.math.BigDecimal(v).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
    }
}
