package io.unibench.workload;

import java.util.ArrayList;
import java.util.List;

/**
 * The common loop of file datasets: lines to prompts. The whole file is read and every line checked, also past the
 * {@code count} prompts kept (a bad line is an error wherever it is), one line at a time, so a large file costs
 * reading time, not memory; lines past the count skip the length filter (which may tokenize).
 */
final class PromptFileReader {
    /**
     * One non-blank line to a prompt, or null when the length filter drops it; bad lines throw. With {@code keep}
     * false the prompt is not needed: check the line, return null.
     */
    interface LineToPrompt {
        Prompt toPrompt(long lineNumber, String line, boolean keep);
    }

    private PromptFileReader() {}

    /** Up to {@code count} prompts in file order; none at all is the filter's error (lines exist but all dropped). */
    static List<Prompt> read(String path, int count, LengthFilter filter, LineToPrompt toPrompt) {
        if (count < 1) throw new IllegalArgumentException("count must be >= 1, got " + count);
        List<Prompt> prompts = new ArrayList<>();
        long read = DatasetFile.forEachNonBlankLine(path, (lineNumber, line) -> {
            boolean keep = prompts.size() < count;
            Prompt prompt = toPrompt.toPrompt(lineNumber, line, keep);
            if (prompt != null && keep) prompts.add(prompt);
            return true;
        });
        if (prompts.isEmpty()) throw filter.nothingPassed(path, read);
        return List.copyOf(prompts);
    }

    /** A filtered plain-text prompt: null when its length is outside the filter or it is not kept. */
    static Prompt filteredText(String text, LengthFilter filter, boolean chat, boolean keep) {
        if (!keep) return null;
        int length = filter.length(text);
        if (!filter.accepts(length)) return null;
        return Prompts.userPrompt(text, chat, -1, filter.tokenizer() != null ? length : -1);
    }
}
