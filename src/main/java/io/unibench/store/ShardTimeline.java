package io.unibench.store;

import static io.unibench.Moments.ABSENT;

import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.Timing;

/**
 * Puts one shard's stored requests on the group's timeline: every moment (stored as nanoseconds since the shard's
 * point start) moves by the shard's {@code shiftNanos} (its point start on the database's clock minus the group's
 * earliest), the epoch start by the shard's clock offset, the index to the group-wide one ({@code firstIndex + i ·
 * indexStep}: step 1 for a block, N for a trace's dealt rows) and a conversation id gets its shard as prefix (ids
 * are only unique within one process).
 */
record ShardTimeline(int shard, long firstIndex, long shiftNanos, long offsetMillis, long indexStep) {
    /** A shard's contiguous block of the group's indices. */
    ShardTimeline(int shard, long firstIndex, long shiftNanos, long offsetMillis) {
        this(shard, firstIndex, shiftNanos, offsetMillis, 1);
    }

    RequestRecord place(RequestRecord r) {
        PhaseTimes p = r.phases();
        PhaseTimes phases = p == PhaseTimes.NONE ? p : new PhaseTimes(at(p.connectStartNanos()), at(p.dnsDoneNanos()),
                at(p.connectDoneNanos()), at(p.tlsDoneNanos()), at(p.writeStartNanos()), at(p.writtenNanos()),
                at(p.firstByteNanos()), at(p.staleStartNanos()));
        Timing t = r.timing();
        long[] chunks = t.tokenChunkNanos();
        long[] placed = chunks == null ? null : new long[chunks.length];
        if (chunks != null) for (int i = 0; i < chunks.length; i++) placed[i] = at(chunks[i]);
        Position pos = r.position();
        return r.withPosition(new Position(firstIndex + pos.index() * indexStep, pos.requestId(),
                        pos.conversationId() == null ? null : "s" + shard + ":" + pos.conversationId(), pos.turnIndex(),
                        pos.lastTurn()))
                .withTiming(new Timing(t.stream(), t.startEpochMillis() - offsetMillis, at(t.scheduledNanos()),
                        at(t.startNanos()), at(t.headersNanos()), at(t.firstChunkNanos()), at(t.firstTokenNanos()),
                        at(t.endNanos()), placed, at(t.firstContentNanos())))
                .withPhases(phases);
    }

    private long at(long nanos) {
        return nanos == ABSENT ? ABSENT : nanos + shiftNanos;
    }
}
