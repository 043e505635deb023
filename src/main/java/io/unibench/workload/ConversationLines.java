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

    /**
     * Never empty: a file with no conversation that passes the filter is a {@link BadInputException}. The
     * conversations start at {@code --dataset-offset} (counted over those that pass the filter, from the start again
     * past the last, as the trie and swe_smith datasets do), so sweep points and shards send different ones.
     */
    static List<Conversation> read(String path, MultiTurnOptions options, int count, LineParser parser) {
        return read(path, options, count, parser, Math.max(0, options.base().offset()));
    }

    private static List<Conversation> read(String path, MultiTurnOptions options, int count, LineParser parser,
                                           long offset) {
        LengthFilter filter = LengthFilter.of(options.base());
        List<Conversation> head = new ArrayList<>();   // kept conversations 0 .. count-1 (the wrap-around part)
        List<Conversation> window = new ArrayList<>(); // kept conversations offset .. offset+count-1
        long[] kept = {0};
        long read = DatasetFile.forEachNonBlankLine(path, (lineNumber, line) -> {
            List<Turn> turns = parser.parse(path, lineNumber, line); // every line is checked, kept or not
            if (offset == 0 && kept[0] >= count) return true; // nothing more to keep or count
            turns = turns.subList(0, options.truncate(turns.size()));
            String first = turns.getFirst().firstUserText();
            if (first != null && !filter.accepts(filter.length(first))) return true;
            long index = kept[0]++;
            boolean inHead = index < count;
            boolean inWindow = offset > 0 && index >= offset && index - offset < count;
            if (inHead || inWindow) {
                Conversation c = new Conversation(path + ":" + lineNumber, turns);
                if (inHead) head.add(c);
                if (inWindow) window.add(c);
            }
            return true;
        });
        if (kept[0] == 0) {
            throw BadInputException.at(path, 0, null, "no conversation passes the length filter: read " + read
                    + " line(s), none whose first user message has a length in " + filter.describe()
                    + "; adjust --min-prompt-length/--max-prompt-length");
        }
        if (offset == 0) return head;
        if (offset >= kept[0]) return read(path, options, count, parser, offset % kept[0]); // a second pass, rarely
        List<Conversation> out = new ArrayList<>(window);
        for (int i = 0; i < head.size() && out.size() < count && i < offset; i++) out.add(head.get(i));
        return out;
    }
}
