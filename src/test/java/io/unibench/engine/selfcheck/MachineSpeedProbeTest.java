package io.unibench.engine.selfcheck;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class MachineSpeedProbeTest {

    private static MachineSpeedProbe.SpeedTally tally(long... chunkCpuNanos) {
        MachineSpeedProbe.SpeedTally t = new MachineSpeedProbe.SpeedTally();
        for (long c : chunkCpuNanos) t.add(c);
        return t;
    }

    private static long[] steady(int n, long nanos) {
        long[] a = new long[n];
        java.util.Arrays.fill(a, nanos);
        return a;
    }

    @Test
    void warmUpChunksAreNotJudged() {
        // interpreted chunks at the start are slow: none of the first WARMUP_SAMPLES counts
        MachineSpeedProbe.SpeedTally t = tally(steady(MachineSpeedProbe.WARMUP_SAMPLES, 100_000));
        t.add(20_000);
        assertThat(t.view().samples()).isEqualTo(1);
        assertThat(t.view().slowSamples()).isZero();
    }

    @Test
    void chunksAboveThreeTimesTheFastestAreSlowAndGiveTheSpeed() {
        MachineSpeedProbe.SpeedTally t = tally(steady(MachineSpeedProbe.WARMUP_SAMPLES + 90, 20_000));
        t.add(59_000); // 2.95×: a busy hyperthread sibling, not a slowed CPU
        for (int i = 0; i < 8; i++) t.add(140_000); // 7×: the host ran the vCPU at 1/7 of its speed
        t.add(0); // below the clock's resolution: ignored
        t.add(20_000);
        MachineSpeedProbe.View v = t.view();
        assertThat(v.samples()).isEqualTo(100);
        assertThat(v.slowSamples()).isEqualTo(8);
        assertThat(v.slowShare()).isEqualTo(0.08);
        assertThat(v.slowestSpeed()).isEqualTo(20_000 / 140_000.0);
    }

    @Test
    void noSamplesMeansUnknown() {
        assertThat(MachineSpeedProbe.View.NONE.slowShare()).isNaN();
        assertThat(tally().view().slowestSpeed()).isNaN();
    }

    @Test
    void stopEndsTheProbeThread() {
        MachineSpeedProbe probe = MachineSpeedProbe.start(Duration.ofMillis(1));
        MachineSpeedProbe.View v = probe.stop();
        assertThat(v.slowSamples()).isLessThanOrEqualTo(v.samples());
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(
                th -> th.getName().equals("unibench-machine-speed") && th.isAlive());
        assertThat(probe.stop()).isEqualTo(v); // idempotent
    }

    @Test
    void theReportNamesTheMachineWhenItSlowedTheCpus() {
        LagHistogram h = new LagHistogram();
        for (int i = 0; i < 100; i++) h.recordNanos(i < 95 ? 500_000 : 20_000_000); // p99 20 ms
        LagProbe.LagHistogramView lag = LagProbe.LagHistogramView.of(h);
        SelfCheckReport slowed = new SelfCheckReport(0.5, 0.9, 5, 2, lag, null,
                new MachineSpeedProbe.View(1000, 72, 0.13), SelfCheck.Thresholds.DEFAULT);
        assertThat(slowed.machineSlowed()).isTrue();
        assertThat(slowed.warningLine()).contains(SelfCheckReport.WARNING)
                .contains("the machine ran the CPUs at ≤ 13% speed for 7.2% of the run");
        assertThat(slowed.notes()).startsWith("the machine ran the CPUs at ≤ 13% speed"); // a note, whatever the verdict
        assertThat(slowed.describeLag()).endsWith("; machine CPUs slowed 7.2% of the run");
        assertThat(slowed.summaryKeys()).containsEntry("Machine CPU Slowed (%)", 7.2);

        SelfCheckReport quiet = new SelfCheckReport(0.5, 0.9, 5, 2, lag, null,
                new MachineSpeedProbe.View(1000, 5, 0.2), SelfCheck.Thresholds.DEFAULT); // 0.5%: noise
        assertThat(quiet.machineSlowed()).isFalse();
        assertThat(quiet.machineNote()).isNull();
        assertThat(quiet.warningLine()).doesNotContain("the machine ran");

        SelfCheckReport unprobed = new SelfCheckReport(0.3, 0.9, 5, 2, lag, null, SelfCheck.Thresholds.DEFAULT);
        assertThat(unprobed.machineSlowShare()).isNaN();
        assertThat(unprobed.summaryKeys().get("Machine CPU Slowed (%)")).isNull();
    }
}
