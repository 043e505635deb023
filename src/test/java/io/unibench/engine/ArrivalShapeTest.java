package io.unibench.engine;

import io.unibench.client.ApiFormat;
import io.unibench.client.ClientResult;
import io.unibench.client.GenerationParams;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.tokenizer.CharEstimateTokenizer;
import io.unibench.workload.Prompt;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The arrival shapes' statistics with fixed seeds, and the open loop sending on exactly their schedule. */
class ArrivalShapeTest {
    private static final int N = 40_000;

    private static double[] gaps(ArrivalSchedule s) {
        double[] g = new double[s.size()];
        long previous = 0;
        for (int i = 0; i < g.length; i++) {
            g[i] = (s.offsetNanos(i) - previous) / 1e9;
            previous = s.offsetNanos(i);
        }
        return g;
    }

    private static double mean(double[] x) {
        double sum = 0;
        for (double v : x) sum += v;
        return sum / x.length;
    }

    private static double cv(double[] x) {
        double m = mean(x), ss = 0;
        for (double v : x) ss += (v - m) * (v - m);
        return Math.sqrt(ss / (x.length - 1)) / m;
    }

    @Test
    void gammaGapsHaveMeanOneOverRateAndCoefficientOfVariationOneOverRootBurstiness() {
        for (double b : new double[] {0.25, 0.5, 2, 4}) {
            ArrivalSchedule s = ArrivalShape.gamma(b).schedule(0, N, 50, new SplittableRandom(11));
            double[] g = gaps(s);
            assertThat(s.offsetNanos(N - 1)).as("rescaled to n/rate, b=%s", b).isCloseTo(800_000_000_000L, within(1L));
            assertThat(mean(g)).isCloseTo(0.02, within(1e-9));
            // CV of gamma(k) is 1/√k: 2, 1.41, 0.71, 0.5; the standard error at n = 40,000 is well under 2 %
            assertThat(cv(g)).as("CV, b=%s", b).isCloseTo(1 / Math.sqrt(b), within(0.03 / Math.sqrt(b)));
            for (double gap : g) assertThat(gap).isGreaterThanOrEqualTo(0);
        }
    }

    @Test
    void burstinessOneIsExactlyThePoissonScheduleAndInfinityIsEvenlySpaced() {
        ArrivalSchedule gamma = ArrivalShape.gamma(1).schedule(0, 100, 5, new SplittableRandom(3));
        PoissonSchedule poisson = new PoissonSchedule(100, 5, new SplittableRandom(3));
        for (int i = 0; i < 100; i++) assertThat(gamma.offsetNanos(i)).isEqualTo(poisson.offsetNanos(i));
        ArrivalSchedule even = ArrivalShape.gamma(Double.POSITIVE_INFINITY).schedule(0, 10, 4, new SplittableRandom(3));
        for (int i = 0; i < 10; i++) assertThat(even.offsetNanos(i)).isEqualTo((i + 1) * 250_000_000L);
        assertThatThrownBy(() -> ArrivalShape.gamma(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void gammaVariatesHaveTheirShapesMeanAndVariance() {
        SplittableRandom rng = new SplittableRandom(5);
        for (double shape : new double[] {0.3, 1.7, 9}) {
            double[] x = new double[N];
            for (int i = 0; i < N; i++) x[i] = ArrivalShape.gammaVariate(shape, rng);
            assertThat(mean(x)).as("mean, k=%s", shape).isCloseTo(shape, within(0.03 * Math.max(1, shape)));
            double m = mean(x), ss = 0;
            for (double v : x) ss += (v - m) * (v - m);
            assertThat(ss / (N - 1)).as("variance, k=%s", shape).isCloseTo(shape, within(0.06 * Math.max(1, shape)));
        }
    }

    @Test
    void aRampMovesTheRateFromStartToEndAsVllmDoes() {
        ArrivalShape.Ramp linear = new ArrivalShape.Ramp(ArrivalShape.Ramp.Strategy.linear, 2, 10);
        assertThat(linear.rateAt(0, 5)).isEqualTo(2);
        assertThat(linear.rateAt(2, 5)).isEqualTo(6);
        assertThat(linear.rateAt(4, 5)).isEqualTo(10);
        ArrivalShape.Ramp exp = new ArrivalShape.Ramp(ArrivalShape.Ramp.Strategy.exponential, 1, 16);
        assertThat(exp.rateAt(2, 5)).isCloseTo(4, within(1e-12));
        assertThat(exp.rateAt(4, 5)).isCloseTo(16, within(1e-12));
        assertThat(linear.describe()).isEqualTo("linear 2 → 10 req/s");

        // constant gaps (infinite burstiness) make the ramp exact: offset i = Σ_{j≤i} 1/rate_j
        ArrivalSchedule s = ArrivalShape.ramp(linear, Double.POSITIVE_INFINITY).schedule(0, 5, -1, new SplittableRandom(1));
        double t = 0;
        for (int i = 0; i < 5; i++) {
            t += 1 / linear.rateAt(i, 5);
            assertThat(s.offsetNanos(i)).isCloseTo(Math.round(t * 1e9), within(1L));
        }
        // with Poisson gaps, the mean gap over the first and the last tenth is the mean of 1/rate_i there
        ArrivalShape.Ramp ramp = new ArrivalShape.Ramp(ArrivalShape.Ramp.Strategy.linear, 10, 100);
        double[] g = gaps(ArrivalShape.ramp(ramp, 1).schedule(0, N, -1, new SplittableRandom(9)));
        for (int from : new int[] {0, N - N / 10}) {
            double expected = 0;
            for (int i = from; i < from + N / 10; i++) expected += 1 / ramp.rateAt(i, N) / (N / 10);
            // 4,000 exponential gaps: the standard error of their mean is 1.6 %
            assertThat(mean(java.util.Arrays.copyOfRange(g, from, from + N / 10))).as("from %d", from)
                    .isCloseTo(expected, within(0.05 * expected));
        }
        assertThatThrownBy(() -> new ArrivalShape.Ramp(ArrivalShape.Ramp.Strategy.linear, 0, 5))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void recordedTimesAreRelativeToThePhasesFirstRequest() {
        ArrivalShape trace = ArrivalShape.recorded(new long[] {5, 105, 105, 400, 1000});
        ArrivalSchedule warmup = trace.schedule(0, 2, -1, new SplittableRandom(1));
        assertThat(new long[] {warmup.offsetNanos(0), warmup.offsetNanos(1)}).containsExactly(0, 100);
        ArrivalSchedule measured = trace.schedule(2, 3, -1, new SplittableRandom(1));
        assertThat(new long[] {measured.offsetNanos(0), measured.offsetNanos(1), measured.offsetNanos(2)})
                .containsExactly(0, 295, 895);
        assertThatThrownBy(() -> trace.schedule(3, 3, -1, new SplittableRandom(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theOpenLoopSendsOnTheShapesScheduleAndRecordsIt() throws Exception {
        ManualClock clock = new ManualClock();
        long anchor = clock.nanoTime();
        // a server answering at once: no queueing, so every start is its scheduled moment
        Sender instant = (body, stream, id) -> {
            long now = clock.nanoTime();
            return CompletableFuture.completedFuture(new ClientResult(true, now, now, now, now, now,
                    new long[] {now}, 200, "a", "", null, "stop", null, null));
        };
        GenerationParams params = new GenerationParams("m", ApiFormat.CHAT, 4, 4, null, 0.0, null, null, null, null,
                true, null);
        List<RequestRecord> records = Collections.synchronizedList(new ArrayList<>());
        ArrivalShape shape = ArrivalShape.gamma(0.5);
        LoadPlan plan = LoadPlan.openLoop(30, 20, null, 0).withArrivals(shape);
        new BenchmarkRunner(instant, new RecordFactory(new CharEstimateTokenizer(4), false), new StopSignal(),
                RequestHooks.NONE, clock).run(plan, new RequestFactory(List.of(Prompt.ofText("hi", -1, -1)), params,
                1, "t"), List.<RecordSink>of(records::add), 7);
        ArrivalSchedule expected = shape.schedule(0, 30, 20, new SplittableRandom(7 + 1)); // measured phase: seed + 1
        List<RequestRecord> got = records.stream().sorted(Comparator.comparingLong((RequestRecord r) -> r.position().index())).toList();
        assertThat(got).hasSize(30);
        for (int i = 0; i < 30; i++) {
            assertThat(got.get(i).timing().scheduledNanos()).as("scheduled %d", i).isEqualTo(anchor + expected.offsetNanos(i));
            assertThat(got.get(i).timing().startNanos()).as("start %d", i).isEqualTo(anchor + expected.offsetNanos(i));
        }
    }
}
