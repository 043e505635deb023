package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.unibench.BadInputException;
import io.unibench.schedule.Schedule;
import io.unibench.schedule.ScheduleDocument;
import io.unibench.schedule.Trigger;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rule editor's fields → the alerts: entry the API takes, and each refusal of the API's own check
 * ({@link ScheduleDocument#checkRule}) → the field it is shown beside.
 */
class RuleEditorTest {
    static final Map<String, String> ENV = Map.of("HOOK_URL", "http://127.0.0.1:9/hook");
    static final Schedule SCHEDULE = new Schedule("nightly", """
            provider: {name: local, base_url: "http://127.0.0.1:9/v1", model: m}
            scenarios:
              - {name: chat, type: chat, prompt: hello}
            alerts:
              - {name: slow, metric: ttft_p95_ms, op: ">", threshold: 2000}
            notify:
              - {name: team-hook, type: webhook, url_env: HOOK_URL}
            """, "nightly.yaml", Trigger.cron("0 2 * * *", "UTC", "cron"), Duration.ZERO, true, null, null, 0, 0);

    static Map<String, String> form(String... pairs) {
        Map<String, String> m = new HashMap<>(Map.of("name", "r", "metric", "rps", "op", "<", "form", "threshold"));
        for (int i = 0; i < pairs.length; i += 2) m.put(pairs[i], pairs[i + 1]);
        return m;
    }

    /** The field → message of the API's refusal of this form. */
    static Map<String, String> refused(Map<String, String> form, List<String> notify) {
        String json = RuleEditor.json(form, notify);
        return RuleEditor.errors(catchThrowableOfType(BadInputException.class,
                () -> ScheduleDocument.checkRule(SCHEDULE, json, ENV)));
    }

    @Test
    void numbersGoInAsNumbersBlanksAreLeftOutAndOnlyTheChosenFormIsSent() {
        assertThat(RuleEditor.json(form("threshold", "1.5", "for_rounds", "3", "level", "", "regression_rounds", "5"),
                List.of("team-hook"))).isEqualTo("{\"name\":\"r\",\"metric\":\"rps\",\"op\":\"<\",\"threshold\":1.5,"
                + "\"for_rounds\":3,\"notify\":[\"team-hook\"]}");
        String regression = RuleEditor.json(form("form", "regression", "threshold", "9", "regression_rounds", "5",
                "regression_percent", "20"), List.of());
        assertThat(regression).isEqualTo("{\"name\":\"r\",\"metric\":\"rps\",\"op\":\"<\",\"regression\":{\"rounds\":5,"
                + "\"percent\":20}}");
        assertThat(ScheduleDocument.checkRule(SCHEDULE, regression, ENV).condition())
                .isEqualTo("rps 20% below the median of its last 5 rounds");
    }

    @Test
    void aLevelIsANumberOrALevelsName() {
        String byName = RuleEditor.json(form("threshold", "1", "level", "rate_10"), List.of());
        assertThat(byName).contains("\"level\":\"rate_10\"");
        assertThat(ScheduleDocument.checkRule(SCHEDULE, byName, ENV).scope().level()).isEqualTo("rate_10");
        String byNumber = RuleEditor.json(form("threshold", "1", "level", "8"), List.of());
        assertThat(ScheduleDocument.checkRule(SCHEDULE, byNumber, ENV).scope().level()).isEqualTo("parallel_8");
        assertThat(refused(form("threshold", "1", "level", "rate ten"), List.of()))
                .containsEntry("level", "must name a level as its label does: parallel_N, rate_R, ramp_STRATEGY_R0_R1, "
                        + "trace or sla_VAR_VAL_run_I");
    }

    @Test
    void eachRefusalNamesItsField() {
        assertThat(refused(form("threshold", "many"), List.of())).containsOnlyKeys("threshold")
                .hasEntrySatisfying("threshold", m -> assertThat(m).contains("number"));
        assertThat(refused(form("threshold", ""), List.of())).containsOnlyKeys("threshold");
        assertThat(refused(form("form", "regression", "regression_rounds", "1", "regression_percent", "5"), List.of()))
                .containsOnlyKeys("regression_rounds");
        assertThat(refused(form("threshold", "1", "error_class", "http_429"), List.of()))
                .containsExactly(Map.entry("error_class", "applies only to metric error_rate"));
        assertThat(refused(form("threshold", "1"), List.of("nope")))
                .containsExactly(Map.entry("notify", "no channel 'nope' in notify: (known: team-hook)"));
        assertThat(refused(form("threshold", "1", "name", "slow"), List.of()))
                .containsExactly(Map.entry("name", "rule 'slow': the document already has it"));
        assertThat(refused(form("threshold", "1", "name", ""), List.of())).containsOnlyKeys("name");
        // the service lacks the channel's variable: beside the channels
        Map<String, String> unset = RuleEditor.errors(catchThrowableOfType(BadInputException.class,
                () -> ScheduleDocument.checkRule(SCHEDULE, RuleEditor.json(form("threshold", "1"), List.of("team-hook")),
                        Map.of())));
        assertThat(unset).containsExactly(Map.entry("notify",
                "notify channel 'team-hook': environment variable HOOK_URL is not set"));
    }
}
