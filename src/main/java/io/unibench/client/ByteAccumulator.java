package io.unibench.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Collects a non-streamed body, up to a limit beyond which the reply is treated as broken. */
final class ByteAccumulator {

    private final int limit;
    private byte[] bytes = new byte[1024];
    private int length;

    ByteAccumulator(int limit) {
        this.limit = limit;
    }

    /** Appends {@code n} bytes of {@code from} from {@code offset}; false (and nothing appended) past the limit. */
    boolean append(byte[] from, int offset, int n) {
        if (length + n > limit) {
            return false;
        }
        if (length + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(length + n, bytes.length * 2));
        }
        System.arraycopy(from, offset, bytes, length, n);
        length += n;
        return true;
    }

    byte[] array() {
        return bytes;
    }

    int length() {
        return length;
    }

    String text(int maxBytes) {
        return new String(bytes, 0, Math.min(length, maxBytes), StandardCharsets.UTF_8);
    }
}
