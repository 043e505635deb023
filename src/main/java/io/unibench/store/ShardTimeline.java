package io.unibench.store;

import static io.unibench.metrics.RequestRecord.ABSENT;

import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.RequestRecord;

/**
 * Puts one shard's stored requests on the group's timeline: every moment (stored as nanoseconds since the shard's
 * point start) moves by the shard's {@code shiftNanos} (its point start on the database's clock minus the group's
 * earliest), the epoch start by the shard's clock offset, the index to the group-wide one ({@code firstIndex + i})
 * and a conversation id gets its shard as prefix (ids are only unique within one process).
 */
record ShardTimeline(int shard, long firstIndex, long shiftNanos, long offsetMillis) {

    RequestRecord place(RequestRecord r) {
        PhaseTimes p = r.phases();
        PhaseTimes phases = p == PhaseTimes.NONE ? p : new PhaseTimes(at(p.connectStartNanos()), at(p.dnsDoneNanos()),
                at(p.connectDoneNanos()), at(p.tlsDoneNanos()), at(p.writeStartNanos()), at(p.writtenNanos()),
                at(p.firstByteNanos()), at(p.staleStartNanos()));
        long[] chunks = r.tokenChunkNanos();
        long[] placed = chunks == null ? null : new long[chunks.length];
        if (chunks != null) for (int i = 0; i < chunks.length; i++) placed[i] = at(chunks[i]);
        return new RequestRecord(firstIndex + r.index(), r.requestId(),
                r.conversationId() == null ? null : "s" + shard + ":" + r.conversationId(), r.turnIndex(), r.lastTurn(),
                r.stream(), r.startEpochMillis() - offsetMillis, at(r.scheduledNanos()), at(r.startNanos()),
                at(r.headersNanos()), at(r.firstChunkNanos()), at(r.firstTokenNanos()), at(r.endNanos()), placed,
                r.promptTokens(), r.completionTokens(), r.cachedTokens(), r.cachedTokenSource(), r.tokenSource(),
                r.success(), r.errorClass(), r.httpStatus(), r.errorMessage(), r.finishReason(), phases,
                r.promptTargetTokens(), r.promptSynthTokens(), r.serverTimings(), r.errorType());
    }

    private long at(long nanos) {
        return nanos == ABSENT ? ABSENT : nanos + shiftNanos;
    }
}
