package io.unibench.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** A round whose point is not valid is no data for its alert rules (never a page), reason by reason. */
class AlertVerdictTest {
    private static JsonNode summary(String verdict) {
        var m = new ObjectMapper().createObjectNode().put("Success Requests", 8);
        if (verdict != null) m.put("Verdict", verdict);
        return m;
    }

    @Test
    void aValidOrUnjudgedPointGivesItsValue() {
        assertThat(AlertEvaluator.untrusted("ttft_p95_ms", summary("valid"))).isNull();
        assertThat(AlertEvaluator.untrusted("ttft_p95_ms", summary(null))).isNull();
    }

    @Test
    void clientBoundUndeliveredOrUnsteadyPointsAreNoData() {
        assertThat(AlertEvaluator.untrusted("ttft_p95_ms", summary("client-bound"))).isEqualTo("client-bound");
        assertThat(AlertEvaluator.untrusted("rps", summary("load-not-delivered; too-few-samples; not-steady")))
                .isEqualTo("load-not-delivered; not-steady");
        assertThat(AlertEvaluator.untrusted("success_rate", summary("load-not-delivered"))).isEqualTo("load-not-delivered");
    }

    @Test
    void errorsSilenceEveryRuleButTheErrorRulesAndTooFewSamplesNone() {
        assertThat(AlertEvaluator.untrusted("ttft_p50_ms", summary("errors"))).isEqualTo("errors");
        assertThat(AlertEvaluator.untrusted("error_rate", summary("errors"))).isNull();
        assertThat(AlertEvaluator.untrusted("success_rate", summary("too-few-samples; errors"))).isNull();
        assertThat(AlertEvaluator.untrusted("ttft_p99_ms", summary("too-few-samples"))).isNull();
    }
}
