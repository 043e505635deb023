package io.unibench.sim;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimConfigTest {

    @Test
    void defaultsAreTheDocumentedProfile() {
        SimConfig c = SimConfig.defaults();
        assertThat(c).isEqualTo(new SimConfig("127.0.0.1", 0, "unibench-sim", 20, 0.02, 5, 64, 0, 16, 65_536,
                true, "cl100k_base"));
    }

    @Test
    void withersChangeOnlyTheirField() {
        SimConfig d = SimConfig.defaults();
        SimConfig c = d.withHost("0.0.0.0").withPort(8000).withModel("m").withTtftMs(1).withPrefillMsPerToken(0.5)
                .withItlMs(2).withMeanOutputTokens(3).withSeed(4).withBlockSize(8).withCacheCapacityBlocks(9)
                .withReportCachedTokens(false).withTokenizer("o200k_base");
        assertThat(c).isEqualTo(new SimConfig("0.0.0.0", 8000, "m", 1, 0.5, 2, 3, 4, 8, 9, false, "o200k_base"));
        assertThat(d.withItlMs(7)).isEqualTo(new SimConfig("127.0.0.1", 0, "unibench-sim", 20, 0.02, 7, 64, 0, 16,
                65_536, true, "cl100k_base"));
    }

    @Test
    void invalidValuesNameTheirField() {
        SimConfig d = SimConfig.defaults();
        assertThatThrownBy(() -> d.withTtftMs(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttftMs");
        assertThatThrownBy(() -> d.withPrefillMsPerToken(Double.NaN)).hasMessageContaining("prefillMsPerToken");
        assertThatThrownBy(() -> d.withItlMs(-0.1)).hasMessageContaining("itlMs");
        assertThatThrownBy(() -> d.withBlockSize(0)).hasMessageContaining("blockSize");
        assertThatThrownBy(() -> d.withMeanOutputTokens(0)).hasMessageContaining("meanOutputTokens");
        assertThatThrownBy(() -> d.withCacheCapacityBlocks(-1)).hasMessageContaining("cacheCapacityBlocks");
        assertThatThrownBy(() -> d.withPort(70_000)).hasMessageContaining("port");
        assertThatThrownBy(() -> d.withModel(" ")).hasMessageContaining("model");
        assertThatThrownBy(() -> d.withHost(null)).hasMessageContaining("host");
        assertThatThrownBy(() -> d.withTokenizer("")).hasMessageContaining("tokenizer");
    }
}
