package io.unibench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;

import java.util.List;

/**
 * One line of a trie trace file (applied-compute/trie's JSONL): only token lengths and tool waits, no text.
 *
 * @param line                 1-based line number in the file, for messages
 * @param inputPromptLength    tokens of the first user prompt
 * @param assistantLengths     reply length after the prompt and after each tool output but the last
 *                             ({@code num_turns} values)
 * @param toolOutputLengths    tokens of each tool output ({@code num_turns} values)
 * @param toolLatencies        seconds the agent waited for each tool ({@code num_turns} values)
 * @param finalResponseLength  length of the final answer (after the last tool output)
 */
public record TrieTrace(long line, int inputPromptLength, List<Integer> assistantLengths,
                        List<Integer> toolOutputLengths, List<Double> toolLatencies, int finalResponseLength) {

    public TrieTrace {
        assistantLengths = List.copyOf(assistantLengths);
        toolOutputLengths = List.copyOf(toolOutputLengths);
        toolLatencies = List.copyOf(toolLatencies);
    }

    public int numTurns() {
        return toolOutputLengths.size();
    }

    /** Requests the trace sends: the prompt, then one per tool output. */
    public int requests() {
        return numTurns() + 1;
    }

    /** {@code max_tokens} of request {@code i} (0-based): the recorded reply length. */
    public int replyLength(int i) {
        return i < numTurns() ? assistantLengths.get(i) : finalResponseLength;
    }

    /**
     * Parses and checks one line: every field present with the right type, no negative value, the three lists as
     * long as {@code num_turns}. Anything else is a {@link BadInputException} naming the file, line and field.
     */
    static TrieTrace parse(String file, long line, String text) {
        JsonNode node;
        try {
            node = Json.MAPPER.readTree(text);
        } catch (Exception e) {
            throw BadInputException.at(file, line, null, "not valid JSON");
        }
        if (node == null || !node.isObject()) throw BadInputException.at(file, line, null, "expected a JSON object");
        int input = nonNegativeInt(file, line, node, "input_prompt_length");
        if (input < 1) throw BadInputException.at(file, line, "input_prompt_length", "must be >= 1, got " + input);
        int numTurns = nonNegativeInt(file, line, node, "num_turns");
        List<Integer> assistant = intList(file, line, node, "assistant_response_length", numTurns);
        List<Integer> toolOut = intList(file, line, node, "tool_call_output_length", numTurns);
        List<Double> latency = doubleList(file, line, node, "tool_call_latency", numTurns);
        int fin = nonNegativeInt(file, line, node, "final_assistant_response_length");
        return new TrieTrace(line, input, assistant, toolOut, latency, fin);
    }

    private static JsonNode field(String file, long line, JsonNode node, String name) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) throw BadInputException.at(file, line, name, "missing");
        return v;
    }

    private static int nonNegativeInt(String file, long line, JsonNode node, String name) {
        JsonNode v = field(file, line, node, name);
        return checkInt(file, line, name, v);
    }

    private static int checkInt(String file, long line, String name, JsonNode v) {
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw BadInputException.at(file, line, name, "expected a whole number, got " + Json.kind(v) + " " + v);
        }
        if (v.intValue() < 0) throw BadInputException.at(file, line, name, "negative: " + v.intValue());
        return v.intValue();
    }

    private static JsonNode list(String file, long line, JsonNode node, String name, int numTurns) {
        JsonNode v = field(file, line, node, name);
        if (!v.isArray()) throw BadInputException.at(file, line, name, "expected a list, got " + Json.kind(v));
        if (v.size() != numTurns) {
            throw BadInputException.at(file, line, name, "has " + v.size() + " values but num_turns is " + numTurns);
        }
        return v;
    }

    private static List<Integer> intList(String file, long line, JsonNode node, String name, int numTurns) {
        JsonNode v = list(file, line, node, name, numTurns);
        Integer[] out = new Integer[v.size()];
        for (int i = 0; i < out.length; i++) out[i] = checkInt(file, line, name + "[" + i + "]", v.get(i));
        return List.of(out);
    }

    private static List<Double> doubleList(String file, long line, JsonNode node, String name, int numTurns) {
        JsonNode v = list(file, line, node, name, numTurns);
        Double[] out = new Double[v.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode e = v.get(i);
            String item = name + "[" + i + "]";
            if (!e.isNumber()) throw BadInputException.at(file, line, item, "expected a number, got " + Json.kind(e));
            double d = e.doubleValue();
            if (!(d >= 0) || Double.isInfinite(d)) throw BadInputException.at(file, line, item, "negative or not finite: " + d);
            out[i] = d;
        }
        return List.of(out);
    }
}
