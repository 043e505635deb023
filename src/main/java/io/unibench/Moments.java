package io.unibench;

/**
 * The one marker of a moment that did not happen. Moments are {@link System#nanoTime()} readings; the client's
 * results and the metrics' records carry {@link #ABSENT} where a moment is missing (no first token on a failed
 * request, no schedule in a closed loop, no connection phases on a reused connection). Any value can be a real
 * reading, so "absent" is one value no real reading takes in practice, never a separate flag.
 */
public final class Moments {
    /** A moment that did not happen. */
    public static final long ABSENT = Long.MIN_VALUE;

    private Moments() {}
}
