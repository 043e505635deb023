package io.unibench.metrics;

import java.util.Arrays;

/** Append-only primitive double array: one raw sample costs 8 bytes, no boxing, no per-request object. */
final class GrowableDoubles {
    private double[] values = new double[64];
    private int size;

    void add(double v) {
        if (size == values.length) values = Arrays.copyOf(values, size + (size >> 1));
        values[size++] = v;
    }

    int size() {
        return size;
    }

    double get(int i) {
        return values[i];
    }

    /** A copy trimmed to size, safe to sort or hand out. */
    double[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
