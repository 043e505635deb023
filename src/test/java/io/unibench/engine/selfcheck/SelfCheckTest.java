package io.unibench.engine.selfcheck;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class SelfCheckTest {

    private static LagProbe.LagHistogramView lag(double... millis) {
        LagHistogram h = new LagHistogram();
        for (double ms : millis) h.recordNanos((long) (ms * 1e6));
        return LagProbe.LagHistogramView.of(h);
    }

    private static SelfCheckReport report(double cpuAvg, LagProbe.LagHistogramView loop) {
        return new SelfCheckReport(cpuAvg, cpuAvg, 1.0, 2, loop, lag(0.1, 0.2), SelfCheck.Thresholds.DEFAULT);
    }

    @Test
    void idleFiguresGiveNoWarning() {
        SelfCheckReport r = report(0.10, lag(0.5, 0.8, 1.0, 0.9));
        assertThat(r.bottleneck()).isFalse();
        assertThat(r.warningLine()).isNull();
        assertThat(r.summaryKeys()).containsEntry("Client Bottleneck Warning", false)
                .containsEntry("Client CPU Avg (%)", 10.0).containsEntry("Client Cores", 2L);
        assertThat(r.describeCpu()).isEqualTo("10% / 10% of 2 cores (1.00 CPU-s)");
    }

    @Test
    void cpuAloneIsNotClientBound() {
        SelfCheckReport r = report(0.51, lag(0.5));
        assertThat(r.cpuHigh()).isTrue();
        assertThat(r.lagHigh()).isFalse();
        assertThat(r.bottleneck()).isFalse();
        assertThat(r.warningLine()).isNull();
    }

    @Test
    void lagP99AboveFiveMillisecondsAtLittleCpuIsNotClientBound() {
        double[] lags = new double[100];
        for (int i = 0; i < lags.length; i++) lags[i] = i < 97 ? 0.5 : 12.0; // p99 falls on a 12 ms sample
        SelfCheckReport r = report(0.05, lag(lags));
        assertThat(r.lagP99Millis()).isBetween(11.8, 12.0);
        assertThat(r.lagHigh()).isTrue();
        assertThat(r.bottleneck()).isFalse(); // the old rule (lag alone) warned here: issue 30 §6
        assertThat(r.summaryKeys()).containsEntry("Client Bottleneck Warning", false);
    }

    @Test
    void cpuAndLagBothHighAreClientBound() {
        SelfCheckReport r = report(0.45, lag(12.0, 12.0, 12.0));
        assertThat(r.bottleneck()).isTrue();
        assertThat(r.warningLine()).contains(SelfCheckReport.WARNING)
                .contains("client CPU avg 45% of 2 cores > 40%; timing lag p99 12.0 ms > 5.0 ms");
        assertThat(r.summaryKeys()).containsEntry("Client Bottleneck Warning", true);
    }

    @Test
    void thresholdsAreInjectable() {
        SelfCheckReport strict = new SelfCheckReport(0.2, 0.3, 1, 2, lag(2.0), null, new SelfCheck.Thresholds(0.1, 1.0));
        assertThat(strict.cpuHigh()).isTrue();
        assertThat(strict.lagHigh()).isTrue();
    }

    @Test
    void unknownFiguresNeverWarnAndBecomeNullKeys() {
        SelfCheckReport r = new SelfCheckReport(Double.NaN, Double.NaN, -1, 2, null, null, SelfCheck.Thresholds.DEFAULT);
        assertThat(r.bottleneck()).isFalse();
        assertThat(r.summaryKeys().get("Timing Lag P99 (ms)")).isNull();
        assertThat(r.summaryKeys().get("Client CPU Avg (%)")).isNull();
    }

    @Test
    void histogramQuantilesAreExactBelowOneMillisecondAndBoundedAbove() {
        LagHistogram h = new LagHistogram();
        for (int i = 1; i <= 1000; i++) h.recordNanos(i * 1_000L); // 1..1000 µs
        assertThat(h.quantileMillis(0.5)).isEqualTo(0.5);
        assertThat(h.quantileMillis(0.99)).isEqualTo(0.99);
        h.recordNanos(50_000_000L);
        assertThat(h.maxMillis()).isEqualTo(50.0);
        assertThat(h.quantileMillis(1.0)).isBetween(50.0 * 0.984, 50.0);
    }

    /**
     * The real samplers on a starved client: its event loop is kept busy in 30 ms slices (as a loop drowning in
     * parsing would be) while hog threads spin on every core. A 10 ms timer on that loop can only fire between
     * slices, so most samples are late by up to 30 ms: p99 > 5 ms follows from the slice length, not from this
     * machine's speed.
     */
    @Test
    void starvedClientWarns() throws Exception {
        DefaultEventLoopGroup loops = new DefaultEventLoopGroup(1);
        AtomicBoolean hogging = new AtomicBoolean(true);
        List<Thread> hogs = new ArrayList<>();
        try {
            SelfCheck check = SelfCheck.start(loops, new SelfCheck.Thresholds(0.40, 5.0, 0),
                    Duration.ofMillis(50), Duration.ofMillis(10), Duration.ZERO); // the whole test run is judged
            EventLoop loop = loops.next();
            for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
                hogs.add(Thread.ofPlatform().daemon().start(() -> {
                    while (hogging.get()) Thread.onSpinWait();
                }));
            }
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(600);
            while (System.nanoTime() < end) { // bounded: 600 ms of 30 ms slices
                loop.submit(() -> spin(30)).get();
            }
            double live = check.loopLagP99MillisNow(); // what the live view shows while the run goes on
            SelfCheckReport r = check.stop();
            assertThat(live).isGreaterThan(5.0);
            assertThat(r.eventLoopLag().samples()).isPositive();
            assertThat(r.eventLoopLag().p99Millis()).isGreaterThan(5.0);
            assertThat(r.cpuSeconds()).isPositive();
            assertThat(r.bottleneck()).isTrue();
            assertThat(r.warningLine()).contains(SelfCheckReport.WARNING);
        } finally {
            hogging.set(false);
            for (Thread t : hogs) t.join(2_000);
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(2, TimeUnit.SECONDS);
        }
    }

    /**
     * The real samplers on an idle process stay silent. Our own process is idle, so its CPU is far under half the
     * cores; the lag bound is generous (100 ms) because this machine is shared and another process may delay our
     * timer thread — the default 5 ms bound is proven on synthetic samples above.
     */
    @Test
    void idleClientStaysSilent() throws Exception {
        DefaultEventLoopGroup loops = new DefaultEventLoopGroup(1);
        try {
            // CPU threshold near 100%: this JVM's own JIT and GC after earlier test classes can use more than half of
            // 2 cores during these 400 ms (seen once: 56% avg); the CPU rule itself is covered by the synthetic-sample
            // tests above, so this one checks that idle loops and an idle scheduler raise no lag warning
            SelfCheck check = SelfCheck.start(loops, new SelfCheck.Thresholds(0.95, 100, 0), Duration.ofMillis(50),
                    Duration.ofMillis(10), Duration.ZERO);
            Thread.sleep(400); // the idle "run" being checked, not a synchronisation
            double live = check.loopLagP99MillisNow();
            SelfCheckReport r = check.stop();
            assertThat(live).isBetween(0.0, 100.0);
            assertThat(r.eventLoopLag().samples()).isPositive();
            assertThat(r.virtualThreadLag().samples()).isPositive();
            assertThat(r.bottleneck()).as(r.describeCpu() + " / " + r.describeLag()).isFalse();
            assertThat(check.stop()).isSameAs(r);
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(2, TimeUnit.SECONDS);
        }
    }

    private static void spin(long millis) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < end) Thread.onSpinWait();
    }
}
