package io.unibench.engine.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unibench.client.ApiFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunSpecTargetTest {

    @Test
    void headersKeepTheOrderTheUserWroteAndCannotChange() {
        Map<String, String> given = new LinkedHashMap<>();
        for (String name : new String[] {"X-Zeta", "X-Alpha", "X-Mid", "X-Beta", "X-Omega", "X-Gamma"}) {
            given.put(name, "v-" + name);
        }
        RunSpec.Target t = new RunSpec.Target("p", "http://127.0.0.1:1/v1/chat/completions", false, "m",
                ApiFormat.CHAT, given, RunSpec.ApiKey.NONE, new RunSpec.Timeouts(null, null, null), 4, null, false);
        given.put("X-Late", "added after");
        assertThat(t.headers().keySet()).containsExactly("X-Zeta", "X-Alpha", "X-Mid", "X-Beta", "X-Omega", "X-Gamma");
        assertThatThrownBy(() -> t.headers().put("X-New", "v")).isInstanceOf(UnsupportedOperationException.class);
    }
}
