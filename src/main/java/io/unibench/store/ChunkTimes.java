package io.unibench.store;

/**
 * The arrival times of a request's text chunks, packed: zig-zag varints of the differences between consecutive
 * times (the first relative to the point's start), exact to the nanosecond. A 20 ms gap takes 4 bytes instead
 * of 8, or of ~20 as JSON text; this column is most of the store's size.
 */
final class ChunkTimes {
    private ChunkTimes() {}

    static byte[] encode(long[] nanos, long base) {
        return nanos.length == 0 ? null : encode(nanos, base, new byte[maxLength(nanos.length)]);
    }

    /** The most bytes {@code count} times can take (10 a varint). */
    static int maxLength(int count) {
        return count * 10;
    }

    /**
     * As {@link #encode(long[], long)}, packing into {@code scratch} (at least {@link #maxLength} of the count
     * long, reused by the caller across requests) and returning a copy of the used part: one pass over the
     * times. With C1 only (the launcher's mode) the earlier two passes (size, then bytes) cost twice this, and
     * this is the writer thread's largest Java cost.
     */
    static byte[] encode(long[] nanos, long base, byte[] scratch) {
        if (nanos.length == 0) return null;
        int i = 0;
        long previous = base;
        for (long t : nanos) {
            long z = zigzag(t - previous);
            previous = t;
            // gaps under ~1 ms take 1-3 bytes: written without the loop, which C1 does not unroll
            if (z >>> 7 == 0) { // unsigned: a zig-zag of a huge delta has the top bit set
                scratch[i++] = (byte) z;
                continue;
            }
            if (z >>> 14 == 0) {
                scratch[i] = (byte) (z | 0x80);
                scratch[i + 1] = (byte) (z >>> 7);
                i += 2;
                continue;
            }
            if (z >>> 21 == 0) {
                scratch[i] = (byte) (z | 0x80);
                scratch[i + 1] = (byte) ((z >>> 7) | 0x80);
                scratch[i + 2] = (byte) (z >>> 14);
                i += 3;
                continue;
            }
            while ((z & ~0x7FL) != 0) {
                scratch[i++] = (byte) ((z & 0x7F) | 0x80);
                z >>>= 7;
            }
            scratch[i++] = (byte) z;
        }
        return java.util.Arrays.copyOf(scratch, i);
    }

    /** Packs requests one after another with one scratch buffer (one writer thread; not thread-safe). */
    static final class Packer {
        private byte[] scratch = new byte[maxLength(256)];

        byte[] pack(long[] nanos, long base) {
            if (nanos == null || nanos.length == 0) return null;
            if (scratch.length < maxLength(nanos.length)) scratch = new byte[maxLength(nanos.length)];
            return encode(nanos, base, scratch);
        }
    }

    private static long zigzag(long delta) {
        return (delta << 1) ^ (delta >> 63);
    }

    static long[] decode(byte[] bytes) {
        if (bytes == null || bytes.length == 0) return new long[0];
        long[] buf = new long[bytes.length];
        int n = 0;
        long previous = 0;
        int i = 0;
        while (i < bytes.length) {
            long zigzag = 0;
            int shift = 0;
            int b;
            do {
                b = bytes[i++];
                zigzag |= (long) (b & 0x7F) << shift;
                shift += 7;
            } while ((b & 0x80) != 0 && i < bytes.length);
            long delta = (zigzag >>> 1) ^ -(zigzag & 1);
            previous += delta;
            buf[n++] = previous;
        }
        return java.util.Arrays.copyOf(buf, n);
    }
}
