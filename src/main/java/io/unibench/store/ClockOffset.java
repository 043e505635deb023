package io.unibench.store;

import java.util.function.LongSupplier;

/**
 * A process's wall clock against the database's, measured as NTP does: read the local clock (t0), the database's
 * (d), the local clock again (t1); then offset = (t0 + t1) / 2 − d, wrong by at most (t1 − t0) / 2 if the two
 * legs of the round trip took different times. Of several samples the one with the shortest round trip wins.
 * Every shard of a group measures against the same database, so a moment m on shard s's clock is
 * {@code m − offset(s)} on the database's, which is how {@code runs merge} puts all shards on one timeline.
 *
 * @param offsetMicros local − database, µs (positive: the local clock is ahead)
 * @param rttMicros    round trip of the sample, µs; the offset's error bound is half of it
 */
public record ClockOffset(long offsetMicros, long rttMicros) {
    static final int SAMPLES = 7;

    /** {@code samples} readings of the database's clock between two of {@code localMicros}; the tightest wins. */
    static ClockOffset measure(LongSupplier localMicros, DatabaseClock database, int samples) throws java.sql.SQLException {
        ClockOffset best = null;
        for (int i = 0; i < samples; i++) {
            long t0 = localMicros.getAsLong();
            long d = database.nowMicros();
            long t1 = localMicros.getAsLong();
            ClockOffset sample = new ClockOffset(Math.floorDiv(t0 + t1, 2) - d, t1 - t0);
            if (best == null || sample.rttMicros < best.rttMicros) best = sample;
        }
        return best;
    }

    /** A moment of the shard's clock (epoch µs) on the database's. */
    public long toDatabaseMicros(long localMicros) {
        return localMicros - offsetMicros;
    }

    /** One reading of the database's clock, epoch µs. */
    @FunctionalInterface
    interface DatabaseClock {
        long nowMicros() throws java.sql.SQLException;
    }
}
