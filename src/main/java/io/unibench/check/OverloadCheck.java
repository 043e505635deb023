package io.unibench.check;

import io.unibench.engine.ProbeRunner;

/**
 * overload-bounded (load): {@code max(2 × limit, limit + 4)} streams at once (a closed-loop point of as many workers),
 * above the server's concurrency limit.
 * Each must be served after a bounded wait or refused early with 429/503; none may run into the client's timeout
 * (every request asks for only {@link #MAX_TOKENS} tokens, so one that does waited in a queue too long).
 * A refusal's {@code Retry-After} is read from the refused replies themselves (a separate probe sent after the first
 * refusal raced the served streams' end: on a busy machine it was served and saw none).
 */
final class OverloadCheck implements Check {
    static final int MAX_TOKENS = 64;

    @Override public String id() { return "overload-bounded"; }

    @Override public boolean load() { return true; }

    @Override public Verdict run(Target t) throws InterruptedException {
        int limit = t.concurrencyLimit();
        int n = Math.max(2 * limit, limit + 4);
        ProbeRunner.Burst burst = t.burst(Ask.of(t.model(), Prompts.STORY, MAX_TOKENS), n);
        Outcomes o = Outcomes.of(burst);
        String retry = o.refused() > 0 ? "; a refusal's Retry-After: "
                + (burst.retryAfter() == null ? "none" : burst.retryAfter()) : "";
        String evidence = n + " streams at limit " + limit + ": " + o.describe() + retry;
        if (o.waitedOut() > 0) {
            return Verdict.fail(id(), evidence + ": the wait is not bounded (requests ran until the client gave up "
                    + "after " + t.settings.timeout().toMillis() + " ms)");
        }
        if (!o.otherFailures().isEmpty()) return Verdict.fail(id(), evidence);
        return Verdict.pass(id(), evidence);
    }
}
