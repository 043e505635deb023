package io.unibench.schedule;

import io.unibench.BadInputException;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The guide's schedule example (docs/inspections.md) is a valid schedule, and a scheduled document's own rules. */
class ScheduleDocumentTest {
    private static final Map<String, String> ENV = Map.of("DEEPSEEK_API_KEY", "sk-test-1", "DASHSCOPE_API_KEY",
            "sk-test-2", "FEISHU_WEBHOOK_URL", "http://127.0.0.1:9/hook", "FEISHU_SIGNING_SECRET", "secret");

    static String readmeExample() throws Exception {
        String page = Files.readString(Path.of("docs", "inspections.md"));
        int start = page.indexOf("```yaml\n") + "```yaml\n".length();
        return page.substring(start, page.indexOf("```", start));
    }

    @Test
    void readmeExampleIsAValidSchedule() throws Exception {
        AlertsDocument a = ScheduleDocument.check("nightly.yaml", readmeExample(), ENV);
        assertThat(a.rules()).singleElement().satisfies(r -> {
            assertThat(r.condition()).isEqualTo("ttft_p95_ms > 2000");
            assertThat(r.forRounds()).isEqualTo(2);
            assertThat(r.channels()).containsExactly("team-feishu");
        });
        assertThat(a.channels().get("team-feishu")).isEqualTo(new Channel("team-feishu", Channel.Type.FEISHU,
                "FEISHU_WEBHOOK_URL", "FEISHU_SIGNING_SECRET", "card", null));
    }

    @Test
    void literalSecretsAreRefusedWithTheirLine() throws Exception {
        String doc = readmeExample().replace("    url_env: FEISHU_WEBHOOK_URL\n", "    url_env: FEISHU_WEBHOOK_URL\n"
                + "    url: https://open.feishu.cn/open-apis/bot/v2/hook/abc\n");
        assertThatThrownBy(() -> ScheduleDocument.check("nightly.yaml", doc, ENV)).isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("nightly.yaml:20: notify[0].url: a literal webhook URL is refused");
        String header = readmeExample().replace("model: qwen-plus,", "model: qwen-plus, headers: {x-api-key: sk-live-123},");
        assertThatThrownBy(() -> ScheduleDocument.check("nightly.yaml", header, ENV))
                .hasMessage("nightly.yaml: provider qwen: header x-api-key looks secret and a schedule stores its "
                        + "document: name the key's variable with api_key_env instead");
    }

    @Test
    void aRuleNeedsExactlyOneOfThresholdAndRegression() throws Exception {
        String doc = readmeExample().replace("    threshold: 2000\n", "    threshold: 2000\n    regression: {rounds: 5, percent: 20}\n");
        assertThatThrownBy(() -> ScheduleDocument.check("nightly.yaml", doc, ENV))
                .hasMessage("nightly.yaml:10: alerts[0]: give exactly one of threshold and regression");
    }
}
