package io.unibench.check;

import io.unibench.client.ClientResult;

import java.util.List;

/**
 * stop: a word of a first reply becomes the stop string of the same request sent again; the second reply must end
 * before it (the stop string is not returned: one probe) with {@code finish_reason} {@code stop} (another). The word is one that first
 * occurs after the reply's third word, so the stop lands mid-reply.
 */
final class StopCheck implements Check {
    static final int MAX_TOKENS = 48;

    @Override public String id() { return "stop"; }

    @Override public Verdict run(Target t) {
        Ask ask = Ask.of(t.model(), Prompts.STORY, MAX_TOKENS);
        ClientResult first = t.send(ask).result();
        if (!first.success()) return Verdict.fail(id(), "request failed: " + first.errorClass() + " " + first.errorMessage());
        String stop = pick(first.content());
        if (stop == null) {
            return Verdict.skip(id(), "the reply is too short to pick a stop string: " + StreamFormatCheck.quote(first.content()));
        }
        ClientResult second = t.send(ask.stoppingAt(stop)).result();
        if (!second.success()) {
            return Verdict.fail(id(), "request with stop failed: " + second.errorClass() + " " + second.errorMessage());
        }
        String evidence = "stop " + StreamFormatCheck.quote(stop) + ": " + Generated.tokens(second) + " of "
                + Generated.tokens(first) + " tokens";
        Verdict.Probe excluded = second.content().contains(stop)
                ? new Verdict.Probe("stop string not returned", Verdict.Status.FAIL, evidence
                        + ": the reply contains the stop string at " + second.content().indexOf(stop))
                : new Verdict.Probe("stop string not returned", Verdict.Status.PASS, evidence);
        String finish = "finish_reason " + second.finishReason();
        Verdict.Probe reason = "stop".equals(second.finishReason())
                ? new Verdict.Probe("finish_reason", Verdict.Status.PASS, finish)
                : new Verdict.Probe("finish_reason", Verdict.Status.FAIL, finish + ": finish_reason is not 'stop'");
        return Verdict.ofProbes(id(), List.of(excluded, reason));
    }

    /** A word (letters only) whose first occurrence in {@code text} is after its third word; null if none. */
    static String pick(String text) {
        String[] words = text.strip().split("\\s+");
        for (int i = 3; i < words.length; i++) {
            String w = words[i].replaceAll("[^\\p{L}]", "");
            if (w.length() < 3) continue;
            int at = text.indexOf(w);
            int minStart = text.indexOf(words[2]) + words[2].length();
            if (at >= minStart) return w;
        }
        return null;
    }
}
