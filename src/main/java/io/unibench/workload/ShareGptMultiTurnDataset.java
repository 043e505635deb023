package io.unibench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code --dataset share_gpt_zh_multi_turn} / {@code share_gpt_en_multi_turn}: the swift/sharegpt JSONL format,
 * one {@code {"conversation": [{"human": "…", "assistant": "…"}, …]}} per line. Each non-blank {@code human} becomes
 * a turn of one user message; the dataset's {@code assistant} replies are never sent (the model's own replies are).
 * Conversations are cut to {@code --max-turns}, and kept iff their first user message passes the
 * {@code --min/--max-prompt-length} filter (evalscope's rule). A malformed line is an error naming the line.
 * The two names differ only in which file evalscope downloads; here the file is always local.
 */
public final class ShareGptMultiTurnDataset implements ConversationDataset {
    public static final String ZH = "share_gpt_zh_multi_turn";
    public static final String EN = "share_gpt_en_multi_turn";

    private final String name;
    private final String hubFile;

    private ShareGptMultiTurnDataset(String name, String hubFile) {
        this.name = name;
        this.hubFile = hubFile;
    }

    public static ShareGptMultiTurnDataset zh() { return new ShareGptMultiTurnDataset(ZH, "common_zh_70k.jsonl"); }

    public static ShareGptMultiTurnDataset en() { return new ShareGptMultiTurnDataset(EN, "common_en_70k.jsonl"); }

    @Override public String name() { return name; }

    @Override public List<Conversation> load(MultiTurnOptions options, int count) {
        String path = options.base().path();
        if (path == null || path.isBlank()) {
            // evalscope downloads it from ModelScope; this tool runs offline and never fetches datasets.
            throw new BadInputException("--dataset " + name + " needs a local JSONL file via --dataset-path: "
                    + hubFile + " of the ModelScope dataset swift/sharegpt (one {\"conversation\": [{\"human\": …, "
                    + "\"assistant\": …}, …]} per line); downloading it is not available offline");
        }
        return ConversationLines.read(path, options, count, ShareGptMultiTurnDataset::parse);
    }

    private static List<Turn> parse(String path, long lineNumber, String line) {
        JsonNode item = Json.parseLine(path, lineNumber, line);
        if (!item.isObject()) {
            throw BadInputException.at(path, lineNumber, null,
                    "expected a JSON object with a 'conversation' array, got " + Json.kind(item));
        }
        JsonNode conversation = item.get("conversation");
        if (conversation == null) throw BadInputException.at(path, lineNumber, "conversation", "missing");
        if (!conversation.isArray()) {
            throw BadInputException.at(path, lineNumber, "conversation", "must be an array, got " + Json.kind(conversation));
        }
        List<Turn> turns = new ArrayList<>();
        for (int i = 0; i < conversation.size(); i++) {
            JsonNode exchange = conversation.get(i);
            String field = "conversation[" + i + "]";
            if (!exchange.isObject()) {
                throw BadInputException.at(path, lineNumber, field, "must be an object with 'human' and 'assistant', got "
                        + Json.kind(exchange));
            }
            JsonNode human = exchange.get("human");
            if (human == null || human.isNull()) continue; // an exchange without a user message adds no turn
            if (!human.isTextual()) {
                throw BadInputException.at(path, lineNumber, field + ".human", "must be a string, got " + Json.kind(human));
            }
            if (!human.textValue().isBlank()) turns.add(Turn.user(human.textValue()));
        }
        if (turns.isEmpty()) {
            throw BadInputException.at(path, lineNumber, "conversation", "has no non-blank 'human' message");
        }
        return turns;
    }
}
