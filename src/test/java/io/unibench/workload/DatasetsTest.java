package io.unibench.workload;

import io.unibench.BadInputException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatasetsTest {
    @Test void namesInListingOrder() {
        assertThat(Datasets.names()).containsExactly("random", "line_by_line", "custom", "openqa", "longalpaca",
                "mooncake_trace", "embedding", "embed", "embedding_batch", "random_embedding", "random_embedding_batch", "rerank",
                "random_rerank");
    }

    @Test void eachNameGivesTheDatasetOfThatName() {
        for (String name : Datasets.names()) assertThat(Datasets.byName(name).name()).isEqualTo(name);
        assertThat(Datasets.byName("random")).isInstanceOf(RandomDataset.class);
        assertThat(Datasets.byName("openqa")).isInstanceOf(OpenQaDataset.class);
    }

    @Test void unknownNameListsTheKnownOnes() {
        assertThatThrownBy(() -> Datasets.byName("sharegpt"))
                .isInstanceOf(BadInputException.class)
                .hasMessage("unknown dataset 'sharegpt'; known: random, line_by_line, custom, openqa, longalpaca, mooncake_trace, embedding, embed, "
                        + "embedding_batch, random_embedding, random_embedding_batch, rerank, random_rerank; with --multi-turn: "
                        + "random_multi_turn, share_gpt_zh_multi_turn, share_gpt_en_multi_turn, custom_multi_turn, swe_smith, trie_agentic_coding, trie_code_qa, trie_office_work");
    }

    @Test void multiTurnNamesNeedTheFlagAndViceVersa() {
        for (String name : Datasets.conversationNames()) {
            assertThat(Datasets.conversationByName(name).name()).isEqualTo(name);
            assertThatThrownBy(() -> Datasets.byName(name)).isInstanceOf(BadInputException.class)
                    .hasMessage("--dataset " + name + " is a multi-turn dataset: add --multi-turn");
        }
        assertThatThrownBy(() -> Datasets.conversationByName("random")).isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("--dataset random is single-turn; --multi-turn needs one of: random_multi_turn");
    }
}
