package io.unibench.store;

import java.io.ByteArrayOutputStream;

/**
 * The arrival times of a request's text chunks, packed: zig-zag varints of the differences between consecutive
 * times (the first relative to the point's start), exact to the nanosecond. A 20 ms gap takes 4 bytes instead
 * of 8, or of ~20 as JSON text; this column is most of the store's size.
 */
final class ChunkTimes {
    private ChunkTimes() {}

    static byte[] encode(long[] nanos, long base) {
        if (nanos.length == 0) return null;
        ByteArrayOutputStream out = new ByteArrayOutputStream(nanos.length * 4 + 4);
        long previous = base;
        for (long t : nanos) {
            long delta = t - previous;
            long zigzag = (delta << 1) ^ (delta >> 63);
            while ((zigzag & ~0x7FL) != 0) {
                out.write((int) ((zigzag & 0x7F) | 0x80));
                zigzag >>>= 7;
            }
            out.write((int) zigzag);
            previous = t;
        }
        return out.toByteArray();
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
