package io.unibench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;

import java.util.ArrayList;
import java.util.List;

/**
 * A Mooncake trace ({@code --dataset mooncake_trace}): JSONL, one request a line, with {@code timestamp} (ms since
 * the trace's start, non-decreasing), {@code input_length} and {@code output_length} (tokens) and {@code hash_ids}:
 * one id per {@value #BLOCK_TOKENS}-token block of the prompt, the last block possibly partial. Equal ids are equal
 * blocks: that is how the trace records which prompts share a prefix.
 *
 * @param path     the file, for messages
 * @param requests in file order
 */
public record MooncakeTrace(String path, List<Request> requests) {
    /** Tokens per hash block in Mooncake's traces. */
    public static final int BLOCK_TOKENS = 512;

    /** One line of the trace. */
    public record Request(double timestampMs, int inputLength, int outputLength, long[] hashIds) {}

    public MooncakeTrace {
        requests = List.copyOf(requests);
    }

    /** Every line of the file; a malformed one is a {@link BadInputException} naming the file, line and field. */
    public static MooncakeTrace read(String path) {
        List<Request> requests = new ArrayList<>();
        double[] last = {Double.NEGATIVE_INFINITY};
        DatasetFile.forEachNonBlankLine(path, (line, text) -> {
            JsonNode n = Json.parseLine(path, line, text);
            if (!n.isObject()) throw BadInputException.at(path, line, null, "expected a JSON object, got " + Json.kind(n));
            double ts = number(path, line, n, "timestamp");
            if (ts < last[0]) {
                throw BadInputException.at(path, line, "timestamp", ts + " is before the previous line's " + last[0]
                        + " (the trace must be in time order)");
            }
            last[0] = ts;
            int input = count(path, line, n, "input_length");
            int output = count(path, line, n, "output_length");
            JsonNode ids = n.get("hash_ids");
            if (ids == null || !ids.isArray()) {
                throw BadInputException.at(path, line, "hash_ids", ids == null ? "missing" : "expected an array of integers");
            }
            int blocks = (input + BLOCK_TOKENS - 1) / BLOCK_TOKENS;
            if (ids.size() != blocks) {
                throw BadInputException.at(path, line, "hash_ids", ids.size() + " ids for input_length " + input
                        + "; one per " + BLOCK_TOKENS + "-token block is " + blocks);
            }
            long[] hashIds = new long[ids.size()];
            for (int i = 0; i < hashIds.length; i++) {
                if (!ids.get(i).canConvertToLong() || !ids.get(i).isIntegralNumber()) {
                    throw BadInputException.at(path, line, "hash_ids", "element " + i + " is not an integer");
                }
                hashIds[i] = ids.get(i).asLong();
            }
            requests.add(new Request(ts, input, output, hashIds));
            return true;
        });
        return new MooncakeTrace(path, requests);
    }

    /**
     * Send times of requests {@code from ..} in nanoseconds from the first of them, divided by {@code speedup}.
     */
    public long[] offsetsNanos(int from, double speedup) {
        long[] offsets = new long[requests.size() - from];
        double base = requests.get(from).timestampMs();
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = Math.round((requests.get(from + i).timestampMs() - base) / speedup * 1e6);
        }
        return offsets;
    }

    private static double number(String path, long line, JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null) throw BadInputException.at(path, line, field, "missing");
        if (!v.isNumber() || !Double.isFinite(v.asDouble()) || v.asDouble() < 0) {
            throw BadInputException.at(path, line, field, "expected a number ≥ 0 (milliseconds), got " + v);
        }
        return v.asDouble();
    }

    private static int count(String path, long line, JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null) throw BadInputException.at(path, line, field, "missing");
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < 1) {
            throw BadInputException.at(path, line, field, "expected a whole number of tokens ≥ 1, got " + v);
        }
        return v.asInt();
    }
}
