package io.unibench.check;

import io.unibench.client.ClientResult;

/**
 * ignore-eos (where supported): with {@code ignore_eos} the reply is exactly {@code max_tokens} long. A 400 that
 * names the field means the server does not support it (SKIP); a shorter reply means it accepted the field and
 * ignored it (FAIL: benchmarks of a fixed output length would be wrong).
 */
final class IgnoreEosCheck implements Check {
    static final int MAX_TOKENS = 256;

    @Override public String id() { return "ignore-eos"; }

    @Override public Verdict run(Target t) {
        ClientResult r = t.send(Ask.of(t.model(), Prompts.SHORT, MAX_TOKENS).ignoringEos()).result();
        if (!r.success()) {
            String msg = String.valueOf(r.errorMessage());
            if (r.httpStatus() >= 400 && r.httpStatus() < 500) {
                return Verdict.skip(id(), "not supported: HTTP " + r.httpStatus() + " " + msg);
            }
            return Verdict.fail(id(), "request failed: " + r.errorClass() + " " + msg);
        }
        int tokens = Generated.tokens(r);
        String evidence = tokens + " tokens with ignore_eos and max_tokens " + MAX_TOKENS + ", finish_reason "
                + r.finishReason();
        if (tokens != MAX_TOKENS) return Verdict.fail(id(), evidence + ": ignore_eos accepted but not honoured");
        return Verdict.pass(id(), evidence);
    }
}
