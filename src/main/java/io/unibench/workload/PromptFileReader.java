package io.unibench.workload;

import java.util.ArrayList;
import java.util.List;

/** The common loop of file datasets: lines to prompts, stopping once enough are collected. */
final class PromptFileReader {
    /** One non-blank line to a prompt, or null when the length filter drops it; bad lines throw. */
    interface LineToPrompt {
        Prompt toPrompt(long lineNumber, String line);
    }

    private PromptFileReader() {}

    /** Up to {@code count} prompts in file order; none at all is the filter's error (lines exist but all dropped). */
    static List<Prompt> read(String path, int count, LengthFilter filter, LineToPrompt toPrompt) {
        if (count < 1) throw new IllegalArgumentException("count must be >= 1, got " + count);
        List<Prompt> prompts = new ArrayList<>();
        long read = DatasetFile.forEachNonBlankLine(path, (lineNumber, line) -> {
            Prompt prompt = toPrompt.toPrompt(lineNumber, line);
            if (prompt != null) prompts.add(prompt);
            return prompts.size() < count;
        });
        if (prompts.isEmpty()) throw filter.nothingPassed(path, read);
        return List.copyOf(prompts);
    }

    /** A filtered plain-text prompt: null when its length is outside the filter. */
    static Prompt filteredText(String text, LengthFilter filter, boolean chat) {
        int length = filter.length(text);
        if (!filter.accepts(length)) return null;
        return Prompts.userPrompt(text, chat, -1, filter.tokenizer() != null ? length : -1);
    }
}
