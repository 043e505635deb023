package io.unibench.sim;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimKnobsTest {
    @Test
    void valuesRoundTripForDefaultsAndEveryProfile() {
        SimConfig d = SimConfig.defaults();
        assertThat(d.with(d.knobValues())).isEqualTo(d);
        for (Map.Entry<String, SimProfiles.Profile> p : SimProfiles.all().entrySet()) {
            SimConfig c = d.with(p.getValue().knobs());
            assertThat(c.with(c.knobValues())).as(p.getKey()).isEqualTo(c);
        }
    }

    @Test
    void defaultsKeepTheFirstSimulatorsPromises() {
        SimConfig d = SimConfig.defaults();
        assertThat(d.scheduling().maxNumSeqs()).isGreaterThanOrEqualTo(256); // perf --parallel 64 never queues
        assertThat(d.faults().rates()).isEmpty();
        StepTimeModel m = StepTimeModel.of(d);
        assertThat(m.stepNanos(1, 5000, 0)).isEqualTo(5_000_000); // one sequence: exactly itl
        assertThat(m.stepNanos(64, 0, 0)).isLessThan(6_000_000);  // modest growth at 64
    }

    @Test
    void errorsUseKnobNames() {
        SimConfig d = SimConfig.defaults();
        assertThatThrownBy(() -> d.with("nope", 1)).hasMessageContaining("nope");
        assertThatThrownBy(() -> d.with("max-queue", 0)).hasMessageContaining("max-queue");
        assertThatThrownBy(() -> d.with("decode-ms-per-1k-context", -1)).hasMessageContaining("decode-ms-per-1k-context");
        assertThatThrownBy(() -> d.with("fault-rate-disconnect", 2)).hasMessageContaining("fault-rate-disconnect");
        assertThatThrownBy(() -> d.with("block-size", 1.5)).hasMessageContaining("block-size");
        assertThatThrownBy(() -> d.with("kv-cache-blocks", -1)).hasMessageContaining("kv-cache-blocks");
    }
}
