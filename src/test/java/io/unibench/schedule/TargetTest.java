package io.unibench.schedule;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A target's stored key: a concurrency level keeps the key it had before levels had names; others by their name. */
class TargetTest {
    @Test
    void aConcurrencyLevelKeepsItsNumericKey() {
        Target t = new Target("p", "m", "chat", "parallel_8");
        assertThat(t.key()).isEqualTo("p | m | chat | 8");
        assertThat(Target.parse("p | m | chat | 8")).isEqualTo(t);
        assertThat(t.display()).isEqualTo("p (m) · chat · concurrency 8");
    }

    @Test
    void otherLevelsAreKeyedAndShownByTheirName() {
        Target rate = new Target("p", "m", "qa/short", "rate_2.5");
        assertThat(rate.key()).isEqualTo("p | m | qa/short | rate_2.5");
        assertThat(Target.parse(rate.key())).isEqualTo(rate);
        assertThat(rate.display()).isEqualTo("p (m) · qa/short · rate 2.5 req/s");
        assertThat(new Target("p", "m", "s", "ramp_linear_2_40").display()).endsWith("· ramp linear 2 → 40 req/s");
        assertThat(new Target("p", "m", "s", "trace").display()).endsWith("· trace replay");
        assertThat(new Target("p", "m", "s", "sla_rate_4_run_1").display()).endsWith("· SLA probe rate 4 req/s, run 1");
    }

    @Test
    void aKeyFromBeforeLevelsHadNamesIsItsLevelsTarget() {
        assertThat(Target.parse("p | m | chat/rate_10 | -1")).isEqualTo(new Target("p", "m", "chat", "rate_10"));
        assertThat(Target.parse("p | m | chat/rate_10 | 8")).as("bounded by max_concurrency")
                .isEqualTo(new Target("p", "m", "chat", "rate_10"));
        assertThat(Target.parse("p | m | a/b/trace | -1")).isEqualTo(new Target("p", "m", "a/b", "trace"));
        assertThat(Target.parse("p | m | chat/sla_tuning/sla_parallel_4_run_0 | 4"))
                .isEqualTo(new Target("p", "m", "chat", "sla_parallel_4_run_0"));
        assertThat(Target.parse("p | m | a/b | 4")).as("a scenario with a slash").isEqualTo(new Target("p", "m", "a/b", "parallel_4"));
    }

    @Test
    void aScopeOfANumberIsThatConcurrencyLevelOnly() {
        AlertsDocument doc = AlertsDocument.parse("f.yaml", """
                alerts:
                  - {name: a, metric: rps, op: "<", threshold: 1, level: 8}
                  - {name: b, metric: rps, op: "<", threshold: 1, level: rate_10}
                """);
        AlertRule.Scope eight = doc.rules().get(0).scope();
        AlertRule.Scope rate = doc.rules().get(1).scope();
        assertThat(eight.matches(new Target("p", "m", "s", "parallel_8"))).isTrue();
        assertThat(eight.matches(new Target("p", "m", "s", "rate_10"))).isFalse();
        assertThat(rate.matches(new Target("p", "m", "s", "rate_10"))).isTrue();
        assertThat(rate.matches(new Target("p", "m", "s", "rate_20"))).isFalse();
    }
}
