package io.unibench.workload;

import io.unibench.BadInputException;
import io.unibench.tokenizer.Tokenizer;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code trie_agentic_coding}, {@code trie_code_qa}, {@code trie_office_work}: replay of agentic traces recorded as
 * token lengths (applied-compute/trie; evalscope §3.1). The three names differ only in the file users pass with
 * {@code --dataset-path} (nothing is downloaded); any file of the same format works under any of them.
 *
 * <p>A trace of {@code num_turns} tool calls becomes {@code num_turns + 1} turns. Turn 0: one user message of
 * {@code input_prompt_length} tokens, {@code max_tokens = assistant_response_length[0]}. Turn i ≥ 1: one user message
 * of {@code tool_call_output_length[i-1]} tokens (the tool's output; {@code user} because a {@code tool} message would
 * need the model's own tool call), sent after a pause of {@code tool_call_latency[i-1]} seconds (the runner scales it
 * by {@code --tool-latency-scale}), {@code max_tokens = assistant_response_length[i]}, the last one
 * {@code final_assistant_response_length}. Lengths of 0 become 1 (a message and {@code max_tokens} need one token).
 *
 * <p>Text is synthesized to the exact length under the run's tokenizer. {@code --prefix-length} tokens shared by
 * every trace open turn 0's message, inside its {@code input_prompt_length} (like a common system prompt; evalscope
 * instead prepends it to every message, lengthening them). {@code --dataset-offset} rotates the trace list (trace k
 * of the file is the (k - offset)-th sent, wrapping). A trace's text depends only on the seed and its line, so
 * offsets and {@code --max-traces} do not change it. Every line is checked before the run starts; a broken one stops
 * it with {@code file:LINE: field 'NAME': problem}. Conversations are synthesized when a worker claims them.
 */
public final class TrieDataset implements ConversationDataset {
    public static final String AGENTIC_CODING = "trie_agentic_coding";
    public static final String CODE_QA = "trie_code_qa";
    public static final String OFFICE_WORK = "trie_office_work";

    private static final long TRACE_STREAM = 0x7472696574726163L;

    private final String name;

    public TrieDataset(String name) {
        this.name = name;
    }

    @Override public String name() { return name; }

    @Override public List<Conversation> load(MultiTurnOptions options, int count) {
        if (count < 1) throw new IllegalArgumentException("count must be >= 1, got " + count);
        DatasetOptions base = options.base();
        if (base.path() == null) {
            throw new BadInputException("--dataset " + name + " needs --dataset-path: the trace JSONL (trie's "
                    + fileName() + " or any file of that format; nothing is downloaded)");
        }
        Tokenizer tokenizer = base.tokenizer();
        if (tokenizer == null) {
            throw new BadInputException("--dataset " + name + " needs --tokenizer-path to synthesize messages of exact "
                    + "token lengths");
        }
        List<TrieTrace> traces = readAll(base.path());
        if (base.prefixLength() < 0) throw new BadInputException("--prefix-length must be >= 0, got " + base.prefixLength());
        for (TrieTrace t : traces) {
            if (base.prefixLength() >= t.inputPromptLength()) {
                throw BadInputException.at(base.path(), t.line(), "input_prompt_length", t.inputPromptLength()
                        + " tokens leave no room after --prefix-length " + base.prefixLength());
            }
        }
        int start = (int) Math.floorMod(base.offset(), (long) traces.size());
        List<TrieTrace> rotated = new ArrayList<>(Math.min(count, traces.size()));
        for (int i = 0; i < Math.min(count, traces.size()); i++) rotated.add(traces.get((start + i) % traces.size()));
        PromptSynthesizer synthesizer = new PromptSynthesizer(tokenizer);
        String prefix = synthesizer.prefix(base.prefixLength(), RandomDataset.prefixSeed(base.seed()));
        return GeneratedList.of(rotated.size(),
                index -> conversation(base.path(), rotated.get(index), synthesizer, prefix, base.seed()),
                name + " " + base.path());
    }

    private String fileName() {
        return switch (name) {
            case CODE_QA -> "code_qa_8k.jsonl";
            case OFFICE_WORK -> "office_work_8k.jsonl";
            default -> "agentic_coding_8k.jsonl";
        };
    }

    /** Every trace of the file, checked. */
    public static List<TrieTrace> readAll(String path) {
        List<TrieTrace> traces = new ArrayList<>();
        DatasetFile.forEachNonBlankLine(path, (line, text) -> {
            traces.add(TrieTrace.parse(path, line, text));
            return true;
        });
        return traces;
    }

    /** The conversation of {@code trace}: deterministic in (seed, trace line). */
    static Conversation conversation(String source, TrieTrace trace, PromptSynthesizer synth, String prefix, long seed) {
        SplittableRandom rng = new SplittableRandom(RandomDataset.itemSeed(seed ^ TRACE_STREAM, 0, trace.line()));
        List<Turn> turns = new ArrayList<>(trace.requests());
        for (int i = 0; i < trace.requests(); i++) {
            int target = i == 0 ? trace.inputPromptLength() : Math.max(1, trace.toolOutputLengths().get(i - 1));
            PromptSynthesizer.Synthesized s = i == 0 && !prefix.isEmpty()
                    ? synth.synthesize(prefix, target, rng) : synth.synthesize(target, rng);
            Double pause = i == 0 ? null : trace.toolLatencies().get(i - 1);
            turns.add(new Turn(Prompts.userMessage(s.text()), Math.max(1, trace.replyLength(i)), pause,
                    s.targetTokens(), s.actualTokens()));
        }
        return new Conversation(source + ":" + trace.line(), turns);
    }
}
