package io.unibench.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The text of a reply, appended chunk by chunk. Plain ASCII pieces (the common token chunk) are appended as bytes
 * straight from the network buffer, without a String per chunk; anything else is appended as a String. Order is
 * kept: pending ASCII bytes join the text before the next String does.
 *
 * <p>Not thread-safe: one per response.
 */
final class TextBuilder {
    private static final byte[] NONE = new byte[0];

    private final StringBuilder text = new StringBuilder();
    private byte[] ascii = NONE;
    private int asciiLength;

    /** Appends {@code s} (nothing when null); true when it was non-empty. */
    boolean append(String s) {
        if (s == null || s.isEmpty()) {
            return false;
        }
        flush();
        text.append(s);
        return true;
    }

    /** Appends {@code length} bytes of {@code buf} from {@code offset}, all ASCII; true when non-empty. */
    boolean appendAscii(byte[] buf, int offset, int length) {
        if (length == 0) {
            return false;
        }
        if (asciiLength + length > ascii.length) {
            ascii = Arrays.copyOf(ascii, Math.max(asciiLength + length, Math.max(64, ascii.length * 2)));
        }
        System.arraycopy(buf, offset, ascii, asciiLength, length);
        asciiLength += length;
        return true;
    }

    /** True while nothing was appended. */
    boolean isEmpty() {
        return asciiLength == 0 && text.isEmpty();
    }

    @Override
    public String toString() {
        if (text.isEmpty()) {
            return new String(ascii, 0, asciiLength, StandardCharsets.ISO_8859_1);
        }
        flush();
        return text.toString();
    }

    private void flush() {
        if (asciiLength > 0) {
            text.append(new String(ascii, 0, asciiLength, StandardCharsets.ISO_8859_1));
            asciiLength = 0;
        }
    }
}
