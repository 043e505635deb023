package io.unibench.engine;

import io.unibench.client.ClientResult;
import io.unibench.metrics.RequestRecord;

import java.util.concurrent.atomic.AtomicLong;

/** Single-turn requests as conversations of one turn: request {@code first + i} of a {@link RequestFactory}. */
final class SingleTurns implements Conversations {
    private final RequestFactory requests;
    private final RecordFactory records;
    private final long first;
    private final int count;
    private final AtomicLong next = new AtomicLong();

    /** Requests {@code first .. first+count-1}; their records are numbered from 0. */
    SingleTurns(RequestFactory requests, RecordFactory records, long first, int count) {
        this.requests = requests;
        this.records = records;
        this.first = first;
        this.count = count;
    }

    @Override
    public Conversation claim(int worker) {
        long i = next.getAndIncrement(); // lock-free: the budget is one counter
        return i < count ? new One(i) : null;
    }

    @Override
    public long claimed() {
        return Math.min(next.get(), count);
    }

    @Override
    public boolean oneTurnEach() {
        return true;
    }

    private final class One implements Conversation {
        private final long index;
        private boolean sent;

        One(long index) {
            this.index = index;
        }

        @Override
        public long sequence() {
            return index;
        }

        @Override
        public PreparedRequest nextTurn() {
            if (sent) return null;
            sent = true;
            return requests.prepare(first + index);
        }

        @Override
        public RequestRecord record(PreparedRequest request, ClientResult result, long scheduledNanos,
                                    long epochMillis) {
            return records.record(index, request, result, scheduledNanos, epochMillis);
        }
    }
}
