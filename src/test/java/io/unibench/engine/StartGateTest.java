package io.unibench.engine;

import io.unibench.metrics.StartWaits;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The start gate (a scenario file's rate_limit) on a clock that moves only when a start waits: exact counts, no machine speed. */
class StartGateTest {
    @Test
    void withoutRateLimitOnlyEachLevelsRampIsPacedAndSteadyStateIsNeverHeldBack() {
        ManualClock clock = new ManualClock();
        StartGate gate = new StartGate(new RateLimiter(8, 1, clock), true);
        gate.beginLevel(4);
        for (int i = 0; i < 100; i++) assertThat(gate.awaitStart()).isTrue();
        StartWaits w = gate.waits();
        // 4 ramp starts at 8/s: the 2nd, 3rd and 4th wait 1/8 s each; the 96 later ones pass at once
        assertThat(w).isEqualTo(new StartWaits(100, 3, 0.375, 0, 0));
        assertThat(w.capped()).isFalse();
        assertThat(clock.nanoTime()).isEqualTo(1_375_000_000L); // 100 starts in 0.375 s: no cap at 8/s
        // the next level keeps the 4 warm connections: only the 4 starts that open new ones are its ramp
        gate.beginLevel(8);
        for (int i = 0; i < 100; i++) assertThat(gate.awaitStart()).isTrue();
        assertThat(gate.waits()).isEqualTo(new StartWaits(100, 4, 0.5, 0, 0));
    }

    @Test
    void anExplicitRateLimitCapsEveryStartAndFlagsTheLevel() {
        ManualClock clock = new ManualClock();
        StartGate gate = new StartGate(new RateLimiter(8, 1, clock), false);
        gate.beginLevel(4);
        for (int i = 0; i < 20; i++) assertThat(gate.awaitStart()).isTrue();
        StartWaits w = gate.waits();
        assertThat(w.rampWaited()).isEqualTo(3);
        assertThat(w.steadyWaited()).isEqualTo(16);
        assertThat(w.steadyWaitSeconds()).isEqualTo(2.0); // 16 × 1/8 s
        assertThat(w.capped()).isTrue();
        gate.beginLevel(8); // a new level counts afresh
        assertThat(gate.waits()).isEqualTo(new StartWaits(0, 0, 0, 0, 0));
    }
}
