package io.unibench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;

import java.util.List;

/**
 * {@code --dataset openqa} (evalscope's default): JSONL, one object per line with a string {@code question};
 * the stripped question is the prompt, length-filtered. A line that is not such an object is an error, not a skip.
 */
public final class OpenQaDataset implements Dataset {
    public static final String NAME = "openqa";

    @Override public String name() { return NAME; }

    @Override public List<Prompt> load(DatasetOptions options, int count) {
        if (options.path() == null || options.path().isBlank()) {
            // evalscope downloads it from ModelScope; this tool runs offline and never fetches datasets.
            throw new BadInputException("--dataset openqa needs a local JSONL file via --dataset-path "
                    + "(one JSON object per line with a string 'question' field, e.g. open_qa.jsonl of the ModelScope "
                    + "dataset AI-ModelScope/HC3-Chinese); downloading it is not available offline");
        }
        String path = options.path();
        LengthFilter filter = LengthFilter.of(options);
        return PromptFileReader.read(path, count, filter, (lineNumber, line, keep) -> {
            JsonNode item = Json.parseLine(path, lineNumber, line);
            if (!item.isObject()) {
                throw BadInputException.at(path, lineNumber, null,
                        "expected a JSON object with a 'question' field, got " + Json.kind(item));
            }
            JsonNode question = item.get("question");
            if (question == null) throw BadInputException.at(path, lineNumber, "question", "missing");
            if (!question.isTextual()) {
                throw BadInputException.at(path, lineNumber, "question", "must be a string, got " + Json.kind(question));
            }
            return PromptFileReader.filteredText(question.textValue().strip(), filter, options.chat(), keep);
        });
    }
}
