package io.unibench.metrics;

import java.util.concurrent.atomic.LongAdder;

/** Counts the records that meet a {@link GoodputSlo}; one per run point, beside {@link RunMetrics}. */
public final class GoodputMeter implements RecordSink {
    private final GoodputSlo slo;
    private final LongAdder good = new LongAdder();

    public GoodputMeter(GoodputSlo slo) {
        this.slo = slo;
    }

    @Override
    public void accept(RequestRecord record) {
        if (slo.met(record)) good.increment();
    }

    /** The point's result with its goodput attached. */
    public RunResult attach(RunResult result) {
        return result.withGoodput(Goodput.of(slo, good.sum(), result.summary()));
    }
}
