package io.unibench.metrics;

import static io.unibench.Moments.ABSENT;

/**
 * Builds {@link RequestRecord}s by hand for tests, with every moment given in milliseconds after a fixed base
 * (so hand arithmetic stays readable). Public so the report tests can use it too.
 */
public final class TestRecords {
    /** An arbitrary nanoTime origin, far from 0 so no computation can accidentally rely on it being 0. */
    public static final long BASE = 5_000_000_000_000L;

    private long index;
    private String requestId = "req";
    private String conversationId;
    private int turn;
    private boolean stream = true;
    private long scheduled = ABSENT;
    private long start = ABSENT;
    private long headers = ABSENT;
    private long firstChunk = ABSENT;
    private long firstToken = ABSENT;
    private long end = ABSENT;
    private long[] chunks = new long[0];
    private int prompt = -1;
    private int completion = -1;
    private int cached = -1;
    private RequestRecord.CacheSource cacheSource = RequestRecord.CacheSource.SERVER;
    private boolean lastTurn;
    private RequestRecord.TokenSource source = RequestRecord.TokenSource.SERVER;
    private boolean success = true;
    private String errorClass;
    private int httpStatus = 200;
    private String errorMessage;
    private String finishReason = "stop";

    public static TestRecords record() {
        return new TestRecords();
    }

    public static long ms(double millis) {
        return BASE + Math.round(millis * 1_000_000);
    }

    public TestRecords index(long i) { index = i; requestId = "req-" + i; return this; }
    public TestRecords conversation(String id, int turnIndex) { conversationId = id; turn = turnIndex; return this; }
    public TestRecords nonStream() { stream = false; return this; }
    public TestRecords scheduledMs(double t) { scheduled = ms(t); return this; }
    public TestRecords startMs(double t) { start = ms(t); return this; }
    public TestRecords headersMs(double t) { headers = ms(t); return this; }
    public TestRecords firstChunkMs(double t) { firstChunk = ms(t); return this; }
    public TestRecords endMs(double t) { end = ms(t); return this; }
    public TestRecords tokens(int promptTokens, int completionTokens) { prompt = promptTokens; completion = completionTokens; return this; }
    public TestRecords cached(int cachedTokens) { cached = cachedTokens; return this; }
    public TestRecords estimatedCached(int cachedTokens) { cached = cachedTokens; cacheSource = RequestRecord.CacheSource.ESTIMATE; return this; }
    public TestRecords lastTurn() { lastTurn = true; return this; }
    public TestRecords source(RequestRecord.TokenSource s) { source = s; return this; }

    /** Text-carrying chunk arrivals; the first one is also the first token. */
    public TestRecords chunksMs(double... t) {
        chunks = new long[t.length];
        for (int i = 0; i < t.length; i++) chunks[i] = ms(t[i]);
        firstToken = t.length == 0 ? ABSENT : chunks[0];
        return this;
    }

    public TestRecords failed(String cls, int status, String message) {
        success = false;
        errorClass = cls;
        httpStatus = status;
        errorMessage = message;
        finishReason = null;
        return this;
    }

    public RequestRecord build() {
        return new RequestRecord(new Position(index, requestId, conversationId, turn, lastTurn),
                new Timing(stream, 1_700_000_000_000L + index, scheduled, start, headers, firstChunk, firstToken, end,
                        chunks),
                new Tokens(prompt, completion, cached, cached < 0 ? null : cacheSource, source, -1, -1),
                new Outcome(success, errorClass, httpStatus, errorMessage, null, finishReason), PhaseTimes.NONE, null);
    }
}
