package io.unibench.client;

import java.util.Arrays;

/**
 * {@link ChunkScanner}'s template: the last chunk it scanned whole that kept exactly one text string (and had no
 * usage object), with that string's literal as a hole. A server's token chunks differ only in that string, so the
 * next chunk is checked against the template: same bytes before the hole (opening quote included), a valid string
 * literal (the scanner's), same bytes after it. JSON is lexed left to right, so that chunk is exactly as valid as
 * the template and reads the same except for the string; comparing bytes runs vectorised, several times faster
 * than the scan.
 *
 * <p>When the chunk was a whole SSE event in place, the template also holds the event's framing (its
 * {@code event:} line, {@code data: }, the LF LF after the data): the next event is then matched whole, framing
 * and all, in the same compares ({@link ChunkScanner#claim}). The Responses API's {@code sequence_number} (the
 * root's integer that is another in every event) is a counter: any integer literal matches there, and the template
 * holds the last match's plus one, as the stream's next event has it, so that it rarely needs a compare of its own.
 *
 * <p>Not thread-safe: part of one scanner.
 */
final class ChunkTemplate {
    /** Chunks larger than this are not kept (they are not token chunks). */
    static final int MAX_CHUNK = 4096;

    private byte[] bytes = new byte[0];
    private int length;
    /** The chunk's JSON in {@link #bytes}: after the framing and before the LF LF, or all of it (unframed). */
    private int jsonStart;
    private int jsonEnd;
    private boolean framed;
    /** The hole: its opening quote, and the first byte after its closing quote. */
    private int holeStart;
    private int holeEnd;
    /** The counter's digits, or -1 (none). */
    private int numStart = -1;
    private int numEnd;
    /** Where the counter last matched by {@link #segment} lies in the matched buffer, or -1: the template's own. */
    private int seenStart;
    private int seenEnd;
    /** Which text field the hole is ({@code ChunkScanner.HOLE_...}), NO_HOLE while there is no template. */
    int field = ChunkScanner.NO_HOLE;
    /** The kept chunk's finish reason, which a matching chunk has too. */
    String finishReason;

    boolean framed() {
        return framed;
    }

    /**
     * Keeps {@code b[from, to)} as the template, the chunk's JSON at the offsets {@code [jsonStart, jsonEnd)} in it
     * with its framing around it when {@code framed}. Then {@link #hole} says where its hole is.
     */
    void keep(byte[] b, int from, int to, boolean framed, int jsonStart, int jsonEnd) {
        if (bytes.length < to - from) bytes = new byte[Math.max(to - from + 16, 256)];
        System.arraycopy(b, from, bytes, 0, to - from);
        this.length = to - from;
        this.framed = framed;
        this.jsonStart = jsonStart;
        this.jsonEnd = jsonEnd;
    }

    /**
     * The kept chunk's hole, the string literal at the offsets {@code [holeStart, holeEnd)} of the kept bytes, and
     * its counter's digits {@code [numStart, numEnd)} ({@code numStart} -1: none).
     */
    void hole(int holeStart, int holeEnd, int field, String finishReason, int numStart, int numEnd) {
        this.holeStart = holeStart;
        this.holeEnd = holeEnd;
        this.field = field;
        this.finishReason = finishReason;
        this.numStart = numStart;
        this.numEnd = numEnd;
        if (numStart >= 0) {
            seenStart = -1;
            nextCounter(null);
        }
    }

    /**
     * {@code b[at, ...)} (within {@code end}) is the template up to and including the hole's opening quote, from
     * the event's first byte ({@code event}) or the chunk's: the index after it, or -1.
     */
    int head(byte[] b, int at, int end, boolean event) {
        seenStart = -1;
        return segment(b, at, end, event ? 0 : jsonStart, holeStart + 1);
    }

    /**
     * {@code b[at, ...)} (within {@code end}) is the template from the hole's end to the event's last byte
     * ({@code event}) or the chunk's: the index after it, or -1.
     */
    int tail(byte[] b, int at, int end, boolean event) {
        return segment(b, at, end, holeEnd, event ? length : jsonEnd);
    }

    /** After a whole match in {@code b} (head, string, tail): the counter predicts the next event's. */
    void matched(byte[] b) {
        if (numStart >= 0) nextCounter(b);
    }

    /**
     * {@code b[at, ...)} equals {@code bytes[from, to)}, except that the counter, when it lies there, may be another
     * integer literal (noted in {@link #seenStart}): the index after it, or -1.
     */
    private int segment(byte[] b, int at, int end, int from, int to) {
        int p = same(b, at, end, from, to);
        if (p >= 0 || numStart < from || numStart >= to) return p;
        p = same(b, at, end, from, numStart);
        if (p < 0) return -1;
        int digits = p;
        while (digits < end && b[digits] >= '0' && b[digits] <= '9' && digits - p < 10) digits++;
        if (digits == p || digits == end || b[digits] >= '0' && b[digits] <= '9' || (b[p] == '0' && digits - p > 1)) {
            return -1; // not a JSON integer of at most 10 digits
        }
        seenStart = p;
        seenEnd = digits;
        return same(b, digits, end, numEnd, to);
    }

    /** {@code b[at, ...)} equals {@code bytes[from, to)}: the index after it, or -1. */
    private int same(byte[] b, int at, int end, int from, int to) {
        int n = to - from;
        if (end - at < n || !Arrays.equals(b, at, at + n, bytes, from, to)) return -1;
        return at + n;
    }

    /** The counter becomes one more than the one matched in {@code b} (the template's own when seenStart is -1). */
    private void nextCounter(byte[] b) {
        if (seenStart >= 0) {
            resizeCounter(seenEnd - seenStart);
            System.arraycopy(b, seenStart, bytes, numStart, seenEnd - seenStart);
        }
        int i = numEnd - 1;
        while (i >= numStart && bytes[i] == '9') bytes[i--] = '0';
        if (i >= numStart) {
            bytes[i]++;
        } else { // 9...9 + 1 = 10...0
            resizeCounter(numEnd - numStart + 1);
            Arrays.fill(bytes, numStart, numEnd, (byte) '0');
            bytes[numStart] = '1';
        }
    }

    /** Makes room for a counter of {@code digits} digits, moving what follows it. */
    private void resizeCounter(int digits) {
        int shift = digits - (numEnd - numStart);
        if (shift == 0) return;
        if (bytes.length < length + shift) bytes = Arrays.copyOf(bytes, length + 16);
        System.arraycopy(bytes, numEnd, bytes, numEnd + shift, length - numEnd);
        length += shift;
        jsonEnd += shift;
        if (holeStart > numStart) {
            holeStart += shift;
            holeEnd += shift;
        }
        numEnd += shift;
    }
}
