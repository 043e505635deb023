package io.unibench.output;

/**
 * Writes a nanosecond count as seconds, exactly as {@code Double.toString(nanos / 1e9)} would (and so as Jackson
 * writes that double), without the general double-to-text algorithm: the value is a whole number of nanoseconds,
 * so its shortest decimal is the nanosecond count with the decimal point moved. Several times cheaper; used for
 * the ~255 inter-chunk intervals of every streamed request in {@code requests.jsonl}.
 *
 * <p>Why it is the same text: a decimal of at most 15 significant digits survives the round trip through a double,
 * so for |seconds| below 10^6 (at most 6 + 9 digits) the shortest decimal that identifies {@code nanos / 1e9} is
 * the exact decimal of nanos·10^-9, trailing zeros dropped; {@link Double#toString(double)} prints it in plain
 * notation from 10^-3 up and as {@code d.dddE-n} below. Larger magnitudes go through Double.toString itself.
 */
final class SecondsText {
    /** Beyond this many nanoseconds (10^6 s) the shortcut no longer holds. */
    private static final long LIMIT = 1_000_000_000_000_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** Most chars (ASCII bytes) one value takes (Double.toString of a long's worth of nanoseconds fits too). */
    static final int MAX_CHARS = 32;

    private SecondsText() {}

    /**
     * Appends the text of {@code nanos / 1e9} (ASCII) to {@code out} at {@code pos}; returns the position after it.
     * {@code out} must have room for {@link #MAX_CHARS} more chars.
     */
    static int append(byte[] out, int pos, long nanos) {
        if (nanos <= -LIMIT || nanos >= LIMIT) {
            String s = Double.toString(nanos / 1e9);
            for (int i = 0; i < s.length(); i++) out[pos + i] = (byte) s.charAt(i); // ASCII
            return pos + s.length();
        }
        if (nanos < 0) {
            out[pos++] = '-';
            nanos = -nanos;
        }
        if (nanos == 0) {
            out[pos] = '0';
            out[pos + 1] = '.';
            out[pos + 2] = '0';
            return pos + 3;
        }
        if (nanos >= 1_000_000) { // >= 1e-3 s: plain notation, at least one digit after the point
            long seconds = nanos / NANOS_PER_SECOND;
            long fraction = nanos % NANOS_PER_SECOND;
            pos = appendDigits(out, pos, seconds, digitCount(seconds));
            out[pos++] = '.';
            if (fraction == 0) {
                out[pos++] = '0';
                return pos;
            }
            int digits = 9;
            while (fraction % 10 == 0) {
                fraction /= 10;
                digits--;
            }
            return appendDigits(out, pos, fraction, digits);
        }
        // below 1e-3 s: d.ddddE-n, the digits of nanos without trailing zeros
        int exponent = digitCount(nanos) - 10; // nanos = d.ddd * 10^(digitCount-1) ns
        while (nanos % 10 == 0) {
            nanos /= 10;
        }
        int n = digitCount(nanos);
        long lead = n == 1 ? nanos : nanos / pow10(n - 1);
        out[pos++] = (byte) ('0' + lead);
        out[pos++] = '.';
        if (n == 1) {
            out[pos++] = '0';
        } else {
            pos = appendDigits(out, pos, nanos % pow10(n - 1), n - 1);
        }
        out[pos++] = 'E';
        out[pos++] = '-';
        return appendDigits(out, pos, -exponent, digitCount(-exponent));
    }

    /** {@code value} as exactly {@code digits} decimal digits (zero-padded on the left). */
    private static int appendDigits(byte[] out, int pos, long value, int digits) {
        for (int i = pos + digits - 1; i >= pos; i--) {
            out[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        return pos + digits;
    }

    private static int digitCount(long v) {
        int n = 1;
        while (v >= 10) {
            v /= 10;
            n++;
        }
        return n;
    }

    private static long pow10(int n) {
        long p = 1;
        for (int i = 0; i < n; i++) p *= 10;
        return p;
    }
}
