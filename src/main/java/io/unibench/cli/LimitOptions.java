package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.engine.spec.RunSpec;
import io.unibench.engine.spec.SpecPaths;
import io.unibench.engine.spec.SpecRules;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code perf}'s flags of the run's limits ({@link RunSpec.Limits}): retries of refusals, the token and cost budget
 * with the prices it needs, the points' target precision. They only map onto the spec; the engine does the rest.
 */
public final class LimitOptions {
    @Option(names = "--retry-on", split = ",", paramLabel = "STATUS", description = "Send a request again when its "
            + "reply has one of these HTTP statuses (e.g. 429,503), honouring Retry-After, else an exponential "
            + "back-off from 0.5 s (jittered, seeded, at most 30 s); each retry is recorded on the request "
            + "(retries, retry_wait_s) and counted in the Phases table. Needs --max-retries. Default: never (a "
            + "capacity run counts refusals).")
    List<Integer> retryOn;

    @Option(names = "--max-retries", paramLabel = "N", description = "With --retry-on: at most N retries per "
            + "request (1..100); the last refusal is the request's result. Default: none (no retries).")
    Integer maxRetries;

    @Option(names = "--max-total-tokens", paramLabel = "N", description = "Budget: stop the run once its requests' "
            + "prompt + completion tokens reach N (no new request is sent, those in flight are cancelled as Ctrl-C "
            + "does; the report is partial and says why). Default: no limit.")
    Long maxTotalTokens;

    @Option(names = "--max-cost", paramLabel = "AMOUNT", description = "Budget: stop the run once its cost at "
            + "--price-input/--price-output reaches AMOUNT (as --max-total-tokens). Default: no limit.")
    Double maxCost;

    @Option(names = "--price-input", paramLabel = "PRICE", description = "Price of 1M input tokens, for "
            + "--max-cost (cached input is priced as input unless --price-cached-input). Default: none.")
    Double priceInput;

    @Option(names = "--price-cached-input", paramLabel = "PRICE", description = "Price of 1M cached input tokens "
            + "(the server's cached_tokens). Default: --price-input.")
    Double priceCachedInput;

    @Option(names = "--price-output", paramLabel = "PRICE", description = "Price of 1M output tokens, for "
            + "--max-cost. Default: none.")
    Double priceOutput;

    @Option(names = "--target-precision", paramLabel = "PCT", description = "End each point once the 95%% "
            + "confidence interval of its TTFT p95 and of its latency p95 is within PCT percent of the value "
            + "(checked every 20+ successes), still bounded by --number and --duration; the point's summary says "
            + "it stopped at precision. A p95 needs at least 72 successful requests, a p99 368. Default: off.")
    Double targetPrecision;

    /** The token prices, or null when none is given; one without the other is bad input. */
    RunSpec.Price price() {
        if (priceInput == null && priceOutput == null && priceCachedInput == null) return null;
        if (priceInput == null || priceOutput == null) {
            throw new BadInputException((priceInput == null ? "--price-output " + priceOutput : "--price-input " + priceInput)
                    + ": needs " + (priceInput == null ? "--price-input" : "--price-output") + " too (prices per 1M tokens)");
        }
        for (double p : new double[] {priceInput, priceOutput, priceCachedInput == null ? 0 : priceCachedInput}) {
            if (!(p >= 0 && Double.isFinite(p))) {
                throw new BadInputException("--price-input/--price-cached-input/--price-output " + p
                        + ": a price per 1M tokens must be a finite amount ≥ 0");
            }
        }
        return new RunSpec.Price(priceInput, priceCachedInput != null ? priceCachedInput : priceInput, priceOutput);
    }

    /** The spec's limits, after the shared rules. */
    RunSpec.Limits limits() {
        RunSpec.Price price = price();
        new SpecRules(SpecPaths.FLAGS).limits(retryOn, maxRetries, maxTotalTokens, maxCost, price != null,
                targetPrecision).throwFirst();
        RunSpec.Retry retry = retryOn == null || retryOn.isEmpty() ? null
                : new RunSpec.Retry(new ArrayList<>(retryOn), maxRetries, null, null);
        return new RunSpec.Limits(retry, maxTotalTokens, maxCost, targetPrecision);
    }
}
