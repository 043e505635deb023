package io.unibench.schedule;

import io.unibench.schedule.AlertMachine.Event;
import io.unibench.schedule.AlertState.Status;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The state machine on fixed series: pending, firing, resolve, reminder, no data, one incident. */
class AlertMachineTest {
    /** A round's input: a value against threshold 100 ({@code >}), or null = no data. */
    private static List<String> run(AlertRule rule, Double... values) {
        AlertState s = AlertState.INITIAL;
        List<String> out = new ArrayList<>();
        int incidents = 0;
        for (Double v : values) {
            AlertMachine.Step step = AlertMachine.step(rule, s, v == null, v != null && v > 100);
            s = step.state();
            // the store gives incident ids; here a FIRED opens one and RESOLVED closes it, as AlertStore does
            for (Event e : step.events()) {
                if (e == Event.FIRED) incidents++;
                if (e == Event.FIRED) s = s.withIncidents("i" + incidents, s.noDataIncidentId());
                if (e == Event.RESOLVED) s = s.withIncidents(null, s.noDataIncidentId());
                if (e == Event.NO_DATA) s = s.withIncidents(s.incidentId(), "nd");
                if (e == Event.DATA_BACK) s = s.withIncidents(s.incidentId(), null);
            }
            out.add(s.status() + (step.events().isEmpty() ? "" : " " + step.events()));
        }
        return out;
    }

    private static AlertRule rule(int forRounds, int resolveAfter, int remind, int noData) {
        return new AlertRule("r", new Metric("ttft_p95_ms", null), AlertRule.Scope.EVERY, AlertRule.Op.GT, 100.0, null,
                forRounds, resolveAfter, remind, noData, 1, List.of());
    }

    @Test
    void firesAfterForRoundsInARowAndPendingNeverNotifies() {
        assertThat(run(rule(2, 1, 0, 0), 50.0, 150.0, 50.0, 150.0, 150.0, 150.0, 50.0)).containsExactly(
                "OK", "PENDING", "OK", "PENDING", "FIRING [FIRED]", "FIRING", "OK [RESOLVED]");
    }

    @Test
    void resolvesOnlyAfterResolveAfterRoundsInARow() {
        assertThat(run(rule(1, 2, 0, 0), 150.0, 50.0, 150.0, 50.0, 50.0)).containsExactly(
                "FIRING [FIRED]", "FIRING", "FIRING", "FIRING", "OK [RESOLVED]");
    }

    @Test
    void remindsEveryNRoundsWhileFiring() {
        assertThat(run(rule(1, 1, 2, 0), 150.0, 150.0, 150.0, 150.0, 150.0)).containsExactly(
                "FIRING [FIRED]", "FIRING", "FIRING [REMINDER]", "FIRING", "FIRING [REMINDER]");
    }

    @Test
    void noDataNeitherCountsNorResetsAStreak() {
        assertThat(run(rule(2, 1, 0, 0), 150.0, null, 150.0)).containsExactly("PENDING", "PENDING", "FIRING [FIRED]");
        assertThat(run(rule(1, 2, 0, 0), 150.0, 50.0, null, 50.0)).containsExactly(
                "FIRING [FIRED]", "FIRING", "FIRING", "OK [RESOLVED]");
    }

    @Test
    void noDataForNRoundsIsItsOwnAlertOnceUntilDataIsBack() {
        assertThat(run(rule(2, 1, 0, 2), null, null, null, 50.0, null)).containsExactly(
                "OK", "OK [NO_DATA]", "OK", "OK [DATA_BACK]", "OK");
    }

    @Test
    void aFiringRuleNeverFiresTwice() {
        List<String> out = run(rule(1, 1, 0, 0), 150.0, 150.0, 150.0, 150.0);
        assertThat(out.stream().filter(s -> s.contains("FIRED"))).hasSize(1);
        assertThat(out.getLast()).isEqualTo(Status.FIRING.name());
    }
}
