package io.unibench.check;

import io.unibench.engine.ProbeSession;

/**
 * overload-bounded (load): {@code max(2 × limit, limit + 4)} streams at once (a closed-loop point of as many workers,
 * run by the check's session), above the server's concurrency limit.
 * Each must be served after a bounded wait or refused early with 429/503; none may run into the client's timeout
 * (every request asks for only {@link #MAX_TOKENS} tokens, so one that does waited in a queue too long).
 * A refusal's {@code Retry-After} is read from the refused replies themselves (a separate probe sent after the first
 * refusal raced the served streams' end: on a busy machine it was served and saw none). When the point's verdict
 * says the client was the bottleneck, a failure is not the server's: the check is SKIP and says so.
 */
final class OverloadCheck implements Check {
    static final int MAX_TOKENS = 64;

    @Override public String id() { return "overload-bounded"; }

    @Override public boolean load() { return true; }

    @Override public Verdict run(Target t) throws InterruptedException {
        int limit = t.concurrencyLimit();
        int n = Math.max(2 * limit, limit + 4);
        ProbeSession.Point burst = t.burst(id() + "/burst of " + n, Ask.of(t.model(), Prompts.STORY, MAX_TOKENS), n);
        Outcomes o = Outcomes.of(burst);
        String retry = o.refused() > 0 ? "; a refusal's Retry-After: "
                + (burst.retryAfter() == null ? "none" : burst.retryAfter()) : "";
        String evidence = n + " streams at limit " + limit + ": " + o.describe() + retry + t.limitNote();
        String client = Target.clientNote(burst);
        String problem = o.waitedOut() > 0 ? ": the wait is not bounded (requests ran until the client gave up after "
                + t.settings.timeout().toMillis() + " ms)" : !o.otherFailures().isEmpty() ? "" : null;
        if (problem == null) return Verdict.pass(id(), evidence + client);
        // the server is not blamed for what the client did not deliver
        if (!client.isEmpty()) return Verdict.skip(id(), evidence + problem + ": not judged" + client);
        return Verdict.fail(id(), evidence + problem);
    }
}
