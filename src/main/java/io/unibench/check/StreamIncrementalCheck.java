package io.unibench.check;

import io.unibench.client.ClientResult;

/**
 * stream-incremental: the tokens of a stream arrive spread over the reply, not in one burst at its end (a buffering
 * gateway or proxy, or compression, turns streaming into waiting). Judged from the benchmark client's arrival
 * stamps: the token chunks must arrive in at least a quarter as many distinct reads as there are chunks, and the
 * first to the last token's arrival must span at least a quarter of the reply's duration (request sent to last byte).
 * {@code ignore_eos} makes the reply long enough to judge; a server that refuses it is asked without.
 */
final class StreamIncrementalCheck implements Check {
    static final int MAX_TOKENS = 64;
    static final double MIN_SPREAD = 0.25;
    private static final int MIN_CHUNKS = 8;

    @Override public String id() { return "stream-incremental"; }

    @Override public Verdict run(Target t) {
        ClientResult r = t.send(Ask.of(t.model(), Prompts.STORY, MAX_TOKENS).ignoringEos()).result();
        if (!r.success()) r = t.send(Ask.of(t.model(), Prompts.STORY, MAX_TOKENS)).result(); // ignore_eos refused: ask plainly
        if (!r.success()) return Verdict.fail(id(), "stream failed: " + r.errorClass() + " " + r.errorMessage());
        if (!r.stream()) return Verdict.fail(id(), "a streamed request was answered with one JSON body");
        long[] arrivals = r.tokenChunkNanos();
        if (arrivals.length < MIN_CHUNKS) {
            return Verdict.skip(id(), "only " + arrivals.length + " token chunks; " + MIN_CHUNKS + " needed to judge");
        }
        int reads = 1;
        for (int i = 1; i < arrivals.length; i++) if (arrivals[i] != arrivals[i - 1]) reads++;
        long span = arrivals[arrivals.length - 1] - arrivals[0];
        long duration = r.endNanos() - r.startNanos();
        double spread = duration <= 0 ? 0 : (double) span / duration;
        String evidence = arrivals.length + " token chunks in " + reads + " reads, arriving over "
                + Target.millis(span) + " ms of a " + Target.millis(duration) + " ms reply ("
                + Math.round(spread * 100) + "%)";
        if (reads * 4 < arrivals.length || spread < MIN_SPREAD) {
            return Verdict.fail(id(), evidence + ": the stream arrived in a burst (a buffering proxy or gateway: "
                    + "proxy_buffering off / X-Accel-Buffering: no, no compression of text/event-stream)");
        }
        return Verdict.pass(id(), evidence);
    }
}
