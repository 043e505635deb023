package io.unibench.metrics;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Cost per completed task: what every request cost, the unfinished ones included, per success and per conversation. */
class CostMeterTest {
    private static final TokenPrice PRICE = (uncached, cached, out) -> (uncached * 1.0 + cached * 0.5 + out * 4.0) / 1e6; // per million tokens

    @Test
    void unfinishedRequestsAreInTheFailureInclusiveCostAndTheCostPerTask() {
        CostMeter meter = new CostMeter();
        RequestRecord ok = TestRecords.record().source(RequestRecord.TokenSource.SERVER).tokens(1000, 100)
                .cached(400).build();
        meter.accept(ok);
        meter.accept(ok);
        meter.accept(TestRecords.record().tokens(1000, 50).failed("cancelled", 200, "cancelled by the client").build());
        meter.accept(TestRecords.record().tokens(1000, 0).failed("http_500", 500, "boom").build());
        CostMeter.Totals t = meter.totals();
        // successes: 2 x (600 uncached x 1 + 400 cached x 0.5 + 100 out x 4) / 1e6 = 2 x 1200 / 1e6
        assertThat(t.cost(PRICE)).isCloseTo(2400 / 1e6, within(1e-12));
        // plus the cancelled stream's 1000 input x 1 and 50 output x 4; the refused 500 is not billed
        assertThat(t.costIncludingFailures(PRICE)).isCloseTo(3600 / 1e6, within(1e-12));
        assertThat(t.unfinished()).isEqualTo(new CostMeter.Unfinished(1, 1000, 50));
        assertThat(t.perSuccessfulRequest(PRICE)).isCloseTo(1800 / 1e6, within(1e-12));
        assertThat(t.perCompletedConversation(PRICE, 1L)).isCloseTo(3600 / 1e6, within(1e-12));
        assertThat(t.perCompletedConversation(PRICE, null)).isNaN();
        assertThat(t.perSuccessfulRequest(null)).isNaN();
        assertThat(t.plus(t).costIncludingFailures(PRICE)).isCloseTo(7200 / 1e6, within(1e-12));
    }
}
