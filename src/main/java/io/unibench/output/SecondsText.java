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
    /** Beyond this many nanoseconds as milliseconds (10^7 ms, where Double.toString turns to E notation). */
    private static final long MILLIS_LIMIT = 10_000_000_000_000L;
    /** Most chars (ASCII bytes) one value takes (Double.toString of a long's worth of nanoseconds fits too). */
    static final int MAX_CHARS = 32;
    private static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) POW10[i] = POW10[i - 1] * 10;
    }

    private SecondsText() {}

    /**
     * Appends the text of {@code nanos / 1e9} (ASCII) to {@code out} at {@code pos}; returns the position after it.
     * {@code out} must have room for {@link #MAX_CHARS} more chars.
     */
    static int append(byte[] out, int pos, long nanos) {
        if (nanos <= -LIMIT || nanos >= LIMIT) return appendString(out, pos, Double.toString(nanos / 1e9));
        return appendDecimal(out, pos, nanos, 9);
    }

    /**
     * Appends {@code Double.toString(value)} (ASCII) when {@code value} is a whole number of nanoseconds in seconds
     * ({@code n / 1e9}, e.g. a latency) or in milliseconds ({@code n / 1e6}, a phase) within the shortcut's range,
     * without the general algorithm: that double is exactly the one {@code n / 1e9} (or {@code n / 1e6}) gives, and
     * so is its text (see the class comment; a decimal of at most 15 significant digits). Returns -1, having written
     * nothing that counts, for any other value. {@code out} must have room for {@link #MAX_CHARS} more chars.
     */
    static int appendIfWhole(byte[] out, int pos, double value) {
        long bits = Double.doubleToRawLongBits(value); // -0.0 is "-0.0": compared by bits, never as 0
        double scaled = value * 1e9;
        if (Math.abs(scaled) < LIMIT) {
            long nanos = Math.round(scaled);
            if (Double.doubleToRawLongBits(nanos / 1e9) == bits) return appendDecimal(out, pos, nanos, 9);
        }
        scaled = value * 1e6;
        if (Math.abs(scaled) < MILLIS_LIMIT) {
            long nanos = Math.round(scaled);
            if (Double.doubleToRawLongBits(nanos / 1e6) == bits) return appendDecimal(out, pos, nanos, 6);
        }
        return -1;
    }

    private static int appendString(byte[] out, int pos, String s) {
        for (int i = 0; i < s.length(); i++) out[pos + i] = (byte) s.charAt(i); // ASCII
        return pos + s.length();
    }

    /**
     * The text of {@code units / 10^scale} for |units| within the shortcut's range of that scale: the exact decimal
     * with the point moved, plain from 10^-3 up, {@code d.dddE-n} below.
     */
    private static int appendDecimal(byte[] out, int pos, long units, int scale) {
        if (units < 0) {
            out[pos++] = '-';
            units = -units;
        }
        if (units == 0) {
            out[pos] = '0';
            out[pos + 1] = '.';
            out[pos + 2] = '0';
            return pos + 3;
        }
        long one = POW10[scale];
        if (units >= one / 1000) { // >= 1e-3: plain notation, at least one digit after the point
            // ints from here: below 10^7 whole units within the shortcut's range, a fraction below 10^scale ≤ 10^9
            int whole = units < one ? 0 : (int) (units / one);
            int fraction = (int) (units - whole * one);
            pos = appendDigits(out, pos, whole, digitCount(whole));
            out[pos++] = '.';
            if (fraction == 0) {
                out[pos++] = '0';
                return pos;
            }
            int digits = scale;
            for (int q; fraction == (q = tenth(fraction)) * 10; fraction = q) digits--;
            return appendDigits(out, pos, fraction, digits);
        }
        // below 1e-3: d.ddddE-n, the digits of units (below 10^(scale-3): an int) without trailing zeros
        int u = (int) units;
        int exponent = digitCount(u) - 1 - scale; // units = d.ddd * 10^(digitCount-1) of 10^-scale
        for (int q; u == (q = tenth(u)) * 10; u = q) { }
        int n = digitCount(u);
        int power = (int) POW10[n - 1];
        int lead = u / power;
        out[pos++] = (byte) ('0' + lead);
        out[pos++] = '.';
        if (n == 1) {
            out[pos++] = '0';
        } else {
            pos = appendDigits(out, pos, u - lead * power, n - 1);
        }
        out[pos++] = 'E';
        out[pos++] = '-';
        return appendDigits(out, pos, -exponent, digitCount(-exponent));
    }

    /**
     * {@code x / 10} for 0 ≤ x < 2^31 by a multiply and a shift: the launcher's C1 compiles a division by a constant
     * as a division (tens of cycles), and a value takes up to 16 of them.
     */
    private static int tenth(int x) {
        return (int) ((x * 0xCCCCCCCDL) >>> 35);
    }

    /** {@code value} (≥ 0) as exactly {@code digits} decimal digits (zero-padded on the left). */
    private static int appendDigits(byte[] out, int pos, int value, int digits) {
        for (int i = pos + digits - 1; i >= pos; i--) {
            int q = tenth(value);
            out[i] = (byte) ('0' + value - q * 10);
            value = q;
        }
        return pos + digits;
    }

    /** Decimal digits of {@code v} ≥ 0. */
    private static int digitCount(int v) {
        int n = 1;
        while (n < 10 && v >= POW10[n]) n++;
        return n;
    }
}
