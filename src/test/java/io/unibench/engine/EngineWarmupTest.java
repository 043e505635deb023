package io.unibench.engine;

import io.unibench.client.ApiFormat;
import io.unibench.client.ClientConfig;
import io.unibench.client.ClientWarmup;
import io.unibench.client.LlmClient;
import io.unibench.workload.Prompt;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The client warm-up's replies run through the engine's record and sinks too, on throwaway sinks, on virtual threads. */
class EngineWarmupTest {
    private static final byte[] BODY = ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"stream\":true,\"max_tokens\":1}").getBytes(StandardCharsets.UTF_8);

    @Test
    void everyWarmUpReplyIsRecordedIntoItsOwnSinksAndItsFileIsGoneAfter() throws Exception {
        PreparedRequest probe = new PreparedRequest(0, "probe", BODY, true, Prompt.ofText("hi", -1, -1));
        List<Boolean> virtual = new ArrayList<>();
        try (LlmClient client = new LlmClient(new ClientConfig(URI.create("http://127.0.0.1:1/v1/chat/completions"),
                Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(1), 4, false,
                io.unibench.client.TlsOptions.DEFAULT, ApiFormat.CHAT))) {
            EngineWarmup engine = new EngineWarmup(probe);
            try (engine) {
                ClientWarmup.Result warm = ClientWarmup.run(client, BODY, true,
                        new ClientWarmup.Budget(8, Duration.ofMinutes(1)), r -> {
                            virtual.add(Thread.currentThread().isVirtual());
                            engine.accept(r);
                        });
                assertThat(warm.failed()).as(warm.line()).isFalse();
                assertThat(engine.records()).isEqualTo(8);
                assertThat(Files.exists(engine.file())).isTrue();
            }
            assertThat(Files.exists(engine.file())).as("its requests.jsonl is deleted").isFalse();
        }
        assertThat(virtual).hasSize(8).containsOnly(true);
    }
}
