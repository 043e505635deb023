package io.unibench.workload;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.BadInputException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code --dataset longalpaca} (evalscope's, reference §3): one JSON array of objects with a string
 * {@code instruction} (LongAlpaca-12k's file); the stripped instruction is the prompt, length-filtered. Every element
 * is checked, also past the prompts kept; a bad one is named by the line it starts on.
 */
public final class LongAlpacaDataset implements Dataset {
    public static final String NAME = "longalpaca";
    /** Reads the array's elements one by one (Json.MAPPER refuses what follows a value, here the next element). */
    private static final ObjectMapper ELEMENTS = new ObjectMapper();

    @Override public String name() { return NAME; }

    @Override public List<Prompt> load(DatasetOptions options, int count) {
        if (count < 1) throw new IllegalArgumentException("count must be >= 1, got " + count);
        if (options.path() == null || options.path().isBlank()) {
            // evalscope downloads it from ModelScope; this tool runs offline and never fetches datasets.
            throw new BadInputException("--dataset longalpaca needs a local JSON file via --dataset-path (one array "
                    + "of objects with a string 'instruction' field, e.g. LongAlpaca-12k.json of the ModelScope dataset "
                    + "AI-ModelScope/LongAlpaca-12k); downloading it is not available offline");
        }
        String path = options.path();
        LengthFilter filter = LengthFilter.of(options);
        List<Prompt> prompts = new ArrayList<>();
        long read = 0;
        try (JsonParser parser = ELEMENTS.createParser(DatasetFile.readAll(path))) {
            if (parser.nextToken() != JsonToken.START_ARRAY) {
                throw BadInputException.at(path, 1, null, "expected one JSON array of objects with an 'instruction' field");
            }
            while (parser.nextToken() != JsonToken.END_ARRAY) {
                long line = parser.currentLocation().getLineNr();
                JsonNode item = parser.readValueAsTree();
                read++;
                String instruction = instruction(path, line, item);
                boolean keep = prompts.size() < count;
                Prompt prompt = PromptFileReader.filteredText(instruction.strip(), filter, options.chat(), keep);
                if (prompt != null) prompts.add(prompt);
            }
            if (parser.nextToken() != null) throw BadInputException.at(path, parser.currentLocation().getLineNr(), null, "text after the array");
        } catch (JsonProcessingException e) {
            throw BadInputException.at(path, e.getLocation() == null ? 0 : e.getLocation().getLineNr(), null,
                    "not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw BadInputException.at(path, 0, null, "cannot read: " + e.getMessage());
        }
        if (read == 0) throw BadInputException.at(path, 0, null, "the array is empty");
        if (prompts.isEmpty()) throw filter.nothingPassed(path, read);
        return List.copyOf(prompts);
    }

    private static String instruction(String path, long line, JsonNode item) {
        if (!item.isObject()) {
            throw BadInputException.at(path, line, null, "expected an object with an 'instruction' field, got " + Json.kind(item));
        }
        JsonNode instruction = item.get("instruction");
        if (instruction == null) throw BadInputException.at(path, line, "instruction", "missing");
        if (!instruction.isTextual()) {
            throw BadInputException.at(path, line, "instruction", "must be a string, got " + Json.kind(instruction));
        }
        return instruction.textValue();
    }
}
