package io.unibench.workload;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GeneratedListTest {

    @Test
    void elementsAreMadeFromTheirIndexWhenAskedForAndNeverStored() {
        AtomicInteger made = new AtomicInteger();
        List<String> list = GeneratedList.of(1_000_000, i -> {
            made.incrementAndGet();
            return "item " + i;
        }, "a million items");
        assertThat(list).hasSize(1_000_000);
        assertThat(made).hasValue(0);
        assertThat(list.get(999_999)).isEqualTo("item 999999");
        assertThat(list.get(999_999)).isEqualTo("item 999999");
        assertThat(made).hasValue(2); // not cached: the same index is made again
        assertThat(list.toString()).isEqualTo("a million items"); // printing does not make all of them
        assertThat(made).hasValue(2);
    }

    @Test
    void indicesOutsideTheListAreRefused() {
        List<Integer> list = GeneratedList.of(3, i -> i, "three");
        assertThatThrownBy(() -> list.get(3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> list.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(list.subList(1, 3)).containsExactly(1, 2);
    }
}
