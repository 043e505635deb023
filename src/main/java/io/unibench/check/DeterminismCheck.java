package io.unibench.check;

import io.unibench.client.ClientResult;

/**
 * determinism: the same request at temperature 0 with the same {@code seed}, sent twice, gets the same text. A
 * difference fails the check and shows where the texts part. (Batching and GPU kernels make many servers
 * non-deterministic even so; read a FAIL here as "expect noise in accuracy numbers", not as broken serving.)
 */
final class DeterminismCheck implements Check {
    static final int MAX_TOKENS = 32;

    @Override public String id() { return "determinism"; }

    @Override public Verdict run(Target t) {
        Ask ask = Ask.of(t.model(), Prompts.STORY, MAX_TOKENS);
        ClientResult a = t.send(ask);
        ClientResult b = t.send(ask);
        for (ClientResult r : new ClientResult[]{a, b}) {
            if (!r.success()) return Verdict.fail(id(), "request failed: " + r.errorClass() + " " + r.errorMessage());
        }
        String x = a.content();
        String y = b.content();
        if (x.equals(y)) return Verdict.pass(id(), "two replies at temperature 0, seed " + Ask.SEED + ": the same "
                + x.length() + " characters");
        int i = 0;
        while (i < Math.min(x.length(), y.length()) && x.charAt(i) == y.charAt(i)) i++;
        return Verdict.fail(id(), "the texts part at character " + i + ": " + StreamFormatCheck.quote(x.substring(i))
                + " vs " + StreamFormatCheck.quote(y.substring(i)));
    }
}
