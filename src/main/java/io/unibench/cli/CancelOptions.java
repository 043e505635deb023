package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.engine.CancelPolicy;
import picocli.CommandLine.Option;

import java.time.Duration;

/** {@code --cancel-rate} and {@code --cancel-after-ms} of {@code perf}. */
public final class CancelOptions {
    @Option(names = "--cancel-rate", paramLabel = "P", description = "Share of requests (0..1) the client hangs up "
            + "mid-stream, recorded as 'cancelled' (not failures), to measure what cancellations cost the others. "
            + "Default: none.")
    Double rate;

    @Option(names = "--cancel-after-ms", paramLabel = "MS", description = "With --cancel-rate: hang up this long after "
            + "the request started. Default: a random moment between the start and the mean latency so far.")
    Long afterMs;

    CancelPolicy policy(long seed) {
        if (rate == null) {
            if (afterMs != null) throw new BadInputException("--cancel-after-ms: needs --cancel-rate");
            return CancelPolicy.NONE;
        }
        if (!(rate >= 0 && rate <= 1)) throw new BadInputException("--cancel-rate " + rate + ": expected 0..1");
        if (afterMs != null && afterMs < 0) throw new BadInputException("--cancel-after-ms " + afterMs + ": expected >= 0");
        return new CancelPolicy(rate, afterMs == null ? null : Duration.ofMillis(afterMs), seed);
    }
}
