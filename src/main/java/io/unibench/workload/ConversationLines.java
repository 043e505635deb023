package io.unibench.workload;

import io.unibench.BadInputException;

import java.util.ArrayList;
import java.util.List;

/**
 * The loading rule shared by the JSONL conversation datasets: one conversation per non-blank line, cut to
 * {@code --max-turns}, kept iff the first user message of its first turn passes the
 * {@code --min/--max-prompt-length} filter (when that message is text), up to {@code count} conversations.
 * Every line of the file is parsed and checked, also those past {@code count} (one at a time: a large file costs
 * reading time, not memory).
 */
final class ConversationLines {

    /** The turns of one line; every rule broken is a {@link BadInputException} naming the line. */
    @FunctionalInterface
    interface LineParser {
        List<Turn> parse(String path, long lineNumber, String line);
    }

    private ConversationLines() {
    }

    /** Never empty: a file with no conversation that passes the filter is a {@link BadInputException}. */
    static List<Conversation> read(String path, MultiTurnOptions options, int count, LineParser parser) {
        LengthFilter filter = LengthFilter.of(options.base());
        List<Conversation> out = new ArrayList<>();
        long read = DatasetFile.forEachNonBlankLine(path, (lineNumber, line) -> {
            List<Turn> turns = parser.parse(path, lineNumber, line); // every line is checked, kept or not
            if (out.size() >= count) return true;
            turns = turns.subList(0, options.truncate(turns.size()));
            String first = turns.getFirst().firstUserText();
            if (first == null || filter.accepts(filter.length(first))) {
                out.add(new Conversation(path + ":" + lineNumber, turns));
            }
            return true;
        });
        if (out.isEmpty()) {
            throw BadInputException.at(path, 0, null, "no conversation passes the length filter: read " + read
                    + " line(s), none whose first user message has a length in " + filter.describe()
                    + "; adjust --min-prompt-length/--max-prompt-length");
        }
        return out;
    }
}
