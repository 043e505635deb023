package io.unibench.client;

import java.util.Arrays;

/** A growable list of primitive longs: one timestamp per streamed token chunk without boxing. */
final class LongList {

    private long[] values = new long[64];
    private int size;

    void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    int size() {
        return size;
    }

    /** The values, trimmed to size. */
    long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
