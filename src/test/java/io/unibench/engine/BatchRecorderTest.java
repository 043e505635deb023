package io.unibench.engine;

import io.unibench.client.ClientResult;
import io.unibench.client.ErrorClass;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.tokenizer.CharEstimateTokenizer;
import io.unibench.workload.Prompt;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BatchRecorderTest {

    private static ClientResult ok(long start) {
        return new ClientResult(true, start, start + 1, start + 2, start + 2, start + 3, new long[] {start + 2}, 200,
                "hi", "", null, "stop", null, null);
    }

    private static BatchRecorder.Finished finished(long index) {
        PreparedRequest request = new PreparedRequest(index, "req-" + index, new byte[0], true, PROMPT);
        return new BatchRecorder.Finished(index, request, ok(1_000 * index), 1_000 * index - 5, 1_700_000_000_000L);
    }

    private static final Prompt PROMPT = Prompt.ofText("hello", -1, -1);
    private static final RecordFactory RECORDS = new RecordFactory(new CharEstimateTokenizer(4), false);

    @Test
    void closeRecordsEverythingQueuedBeforeItInOrderWithTheHooksCheck() {
        List<RequestRecord> seen = Collections.synchronizedList(new ArrayList<>());
        RequestHooks failEven = new RequestHooks() {
            @Override public ClientResult check(ClientResult r) {
                return r.startNanos() % 2000 == 0 ? new ClientResult(true, r.startNanos(), r.headersNanos(),
                        r.firstChunkNanos(), r.firstTokenNanos(), r.endNanos(), r.tokenChunkNanos(), 200, r.content(),
                        "", null, "stop", ErrorClass.VALIDATION_ERROR, "even") : r;
            }
        };
        BatchRecorder recorder = new BatchRecorder(RECORDS, failEven, List.of(seen::add));
        for (long i = 0; i < 1000; i++) recorder.add(finished(i));
        recorder.close();
        assertThat(seen).hasSize(1000);
        assertThat(seen).extracting(rec -> rec.position().index()).isSorted();
        assertThat(seen.get(0).success()).isFalse();
        assertThat(seen.get(1).success()).isTrue();
        assertThat(seen.get(7).timing().scheduledNanos()).isEqualTo(6_995);
    }

    @Test
    void aSinkThatThrowsKeepsNoRecordFromTheOtherSinksAndCloseRethrowsIt() {
        List<RequestRecord> seen = new ArrayList<>();
        RecordSink flaky = r -> {
            if (r.position().index() == 3) throw new IllegalStateException("disk full");
        };
        BatchRecorder recorder = new BatchRecorder(RECORDS, RequestHooks.NONE, List.of(flaky, seen::add));
        for (long i = 0; i < 10; i++) recorder.add(finished(i));
        assertThatThrownBy(recorder::close).isInstanceOf(IllegalStateException.class).hasMessage("disk full");
        assertThat(seen).extracting(rec -> rec.position().index())
                .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    }

    @Test
    void aRequestEndedWithoutAResultFailsTheRunAtClose() {
        BatchRecorder recorder = new BatchRecorder(RECORDS, RequestHooks.NONE, List.of());
        recorder.fail(new RuntimeException("boom"));
        assertThatThrownBy(recorder::close).hasMessageContaining("a request ended without a result")
                .hasMessageContaining("boom");
    }
}
