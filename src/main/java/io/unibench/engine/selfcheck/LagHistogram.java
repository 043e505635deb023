package io.unibench.engine.selfcheck;

/**
 * Scheduling delays in a fixed amount of memory, whatever the run length: exact to the microsecond below
 * 1 ms, then 64 sub-buckets per power of two (under 1.6% error), which is plenty to tell "fine" from "5 ms late".
 *
 * <p>Not thread-safe: each probe records from one thread and hands a {@link #copy()} over when it stops.
 */
final class LagHistogram {
    private static final int LINEAR = 1024;           // 0..1023 µs exact
    private static final int SUB = 64;                // sub-buckets per power of two above
    private static final int OCTAVES = 32;            // up to 2^42 µs; more than any run lasts
    private final long[] counts = new long[LINEAR + OCTAVES * SUB];
    private long total;
    private long maxMicros;

    void recordNanos(long nanos) {
        long micros = Math.max(0, nanos / 1_000);
        counts[index(micros)]++;
        total++;
        if (micros > maxMicros) maxMicros = micros;
    }

    void add(LagHistogram other) {
        for (int i = 0; i < counts.length; i++) counts[i] += other.counts[i];
        total += other.total;
        maxMicros = Math.max(maxMicros, other.maxMicros);
    }

    LagHistogram copy() {
        LagHistogram c = new LagHistogram();
        c.add(this);
        return c;
    }

    long count() {
        return total;
    }

    double maxMillis() {
        return total == 0 ? Double.NaN : maxMicros / 1_000.0;
    }

    /** The q-quantile (0..1) in milliseconds, an upper bound of its bucket (never under-reports); NaN when empty. */
    double quantileMillis(double q) {
        if (total == 0) return Double.NaN;
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) return Math.min(upperMicros(i), maxMicros) / 1_000.0;
        }
        return maxMicros / 1_000.0;
    }

    private static int index(long micros) {
        if (micros < LINEAR) return (int) micros;
        int octave = 63 - Long.numberOfLeadingZeros(micros) - 10;       // micros in [2^(10+octave), 2^(11+octave))
        if (octave >= OCTAVES) return LINEAR + OCTAVES * SUB - 1;
        int sub = (int) ((micros >>> (10 + octave - 6)) & (SUB - 1));   // next 6 bits below the leading one
        return LINEAR + octave * SUB + sub;
    }

    private static long upperMicros(int index) {
        if (index < LINEAR) return index;
        int octave = (index - LINEAR) / SUB;
        int sub = (index - LINEAR) % SUB;
        long base = 1L << (10 + octave);
        long width = base / SUB;
        return base + (sub + 1) * width - 1;
    }
}
