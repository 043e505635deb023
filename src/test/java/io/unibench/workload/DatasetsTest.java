package io.unibench.workload;

import io.unibench.BadInputException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatasetsTest {
    @Test void namesInListingOrder() {
        assertThat(Datasets.names()).containsExactly("random", "line_by_line", "custom", "openqa");
    }

    @Test void eachNameGivesTheDatasetOfThatName() {
        for (String name : Datasets.names()) assertThat(Datasets.byName(name).name()).isEqualTo(name);
        assertThat(Datasets.byName("random")).isInstanceOf(RandomDataset.class);
        assertThat(Datasets.byName("openqa")).isInstanceOf(OpenQaDataset.class);
    }

    @Test void unknownNameListsTheKnownOnes() {
        assertThatThrownBy(() -> Datasets.byName("sharegpt"))
                .isInstanceOf(BadInputException.class)
                .hasMessage("unknown dataset 'sharegpt'; known: random, line_by_line, custom, openqa");
    }
}
