package io.unibench.workload;

import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.function.IntFunction;

/**
 * A read-only list whose elements are made from their index when asked for, not stored: the synthetic datasets
 * derive element {@code i} from (seed, offset, i) alone, so a large {@code --number} holds no prompt text in memory.
 * The element function must be pure and thread-safe (workers claim elements concurrently); nothing is cached.
 */
final class GeneratedList<T> extends AbstractList<T> implements RandomAccess {
    private final int size;
    private final IntFunction<? extends T> element;
    private final String description;

    private GeneratedList(int size, IntFunction<? extends T> element, String description) {
        this.size = size;
        this.element = element;
        this.description = description;
    }

    /** {@code size} elements, element {@code i} being {@code element.apply(i)}; {@code description} its toString. */
    static <T> List<T> of(int size, IntFunction<? extends T> element, String description) {
        if (size < 0) throw new IllegalArgumentException("size must be >= 0, got " + size);
        return new GeneratedList<>(size, element, description);
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public T get(int index) {
        Objects.checkIndex(index, size);
        return element.apply(index);
    }

    /** The description, not the elements: printing a list must not synthesize all of it. */
    @Override
    public String toString() {
        return description;
    }
}
