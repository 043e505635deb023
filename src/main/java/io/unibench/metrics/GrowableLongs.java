package io.unibench.metrics;

import java.util.Arrays;

/** Append-only primitive long array (see {@link GrowableDoubles}). */
final class GrowableLongs {
    private long[] values = new long[64];
    private int size;

    void add(long v) {
        if (size == values.length) values = Arrays.copyOf(values, size + (size >> 1));
        values[size++] = v;
    }

    int size() {
        return size;
    }

    long get(int i) {
        return values[i];
    }

    long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
