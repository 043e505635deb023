package io.unibench.check;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;

/**
 * determinism: the same request at temperature 0 with the same {@code seed}, sent twice one after the other (so no
 * other request of ours shares its batch), gets the same text. A difference FAILs and shows where the texts part,
 * unless the server said it may answer differently: the two replies carry different {@code system_fingerprint}s,
 * OpenAI's word for "the backend configuration changed" (its reproducibility guide: with the same seed, replies may
 * differ when the fingerprint does). That difference is a WARN line: reported with both fingerprints, not judged,
 * and the exit code stays 0. The requests are non-streamed and read raw by the same client, which shows the
 * fingerprint the benchmark client does not keep. (Servers that send no fingerprint, vLLM's and SGLang's, say
 * nothing either way: a difference fails; batching and GPU kernels make many of them non-deterministic even so,
 * so read a FAIL here as "expect noise in accuracy numbers", not as broken serving.)
 */
final class DeterminismCheck implements Check {
    static final int MAX_TOKENS = 32;

    @Override public String id() { return "determinism"; }

    @Override public Verdict run(Target t) throws InterruptedException {
        byte[] body = t.body(Ask.of(t.model(), Prompts.STORY, MAX_TOKENS).notStreamed());
        Reply a = reply(t, t.post(body));
        Reply b = reply(t, t.post(body));
        for (Reply r : new Reply[]{a, b}) {
            if (r.problem() != null) return Verdict.fail(id(), r.problem());
        }
        String x = a.text();
        String y = b.text();
        if (x.equals(y)) return Verdict.pass(id(), "two replies at temperature 0, seed " + Ask.SEED + ": the same "
                + x.length() + " characters" + (a.fingerprint() == null ? "" : ", system_fingerprint " + a.fingerprint()));
        int i = 0;
        while (i < Math.min(x.length(), y.length()) && x.charAt(i) == y.charAt(i)) i++;
        String parted = "the texts part at character " + i + ": " + StreamFormatCheck.quote(x.substring(i)) + " vs "
                + StreamFormatCheck.quote(y.substring(i));
        if (a.fingerprint() != null && b.fingerprint() != null && !a.fingerprint().equals(b.fingerprint())) {
            return Verdict.warn(id(), parted + "; not judged: the server's system_fingerprint changed ("
                    + a.fingerprint() + " → " + b.fingerprint() + "), so it may answer differently");
        }
        return Verdict.fail(id(), parted + (a.fingerprint() == null ? "" : " (the same system_fingerprint "
                + a.fingerprint() + ")"));
    }

    /** A non-streamed reply's first choice's text and its {@code system_fingerprint}, or what went wrong. */
    private record Reply(String text, String fingerprint, String problem) {}

    private static Reply reply(Target t, Target.RawPost raw) {
        if (raw.problem() != null) return new Reply(null, null, "request failed: " + raw.problem());
        if (raw.status() != 200) return new Reply(null, null, "request failed: HTTP " + raw.status() + " " + raw.head(200));
        try {
            JsonNode root = t.mapper.readTree(raw.body());
            JsonNode text = root.path("choices").path(0).path("message").path("content");
            if (!text.isTextual()) return new Reply(null, null, "reply has no choices[0].message.content: " + raw.head(200));
            JsonNode fp = root.get("system_fingerprint");
            return new Reply(text.textValue(), fp != null && fp.isTextual() ? fp.textValue() : null, null);
        } catch (IOException e) {
            return new Reply(null, null, "reply is not JSON: " + raw.head(200));
        }
    }
}
