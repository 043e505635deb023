package io.unibench.workload;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.tokenizer.Tokenizers;

import java.util.List;

/**
 * {@code --dataset mooncake_trace --dataset-path FILE}: a {@link MooncakeTrace}'s requests from line
 * {@code --dataset-offset} on, each a full body: the prompt synthesized from its hash blocks ({@link HashBlockText};
 * exactly {@code input_length} tokens of the synthesis tokenizer, shared blocks identical), {@code max_tokens} =
 * {@code output_length} and {@code ignore_eos: true} so the reply is that long. The send times are the engine's
 * (the trace's timestamps); prompts are made when the request is prepared, so a long trace holds no text in memory.
 */
public final class MooncakeTraceDataset implements Dataset {
    public static final String NAME = "mooncake_trace";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Prompt> load(DatasetOptions options, int count) {
        String path = CustomDataset.requirePath(NAME, options, "a Mooncake JSONL trace (timestamp, input_length, "
                + "output_length, hash_ids)");
        MooncakeTrace trace = MooncakeTrace.read(path);
        int from = (int) Math.min(options.offset(), trace.requests().size());
        int n = Math.min(count, trace.requests().size() - from);
        if (n <= 0) {
            throw new io.unibench.BadInputException("--dataset-offset " + options.offset() + ": " + path + " has "
                    + trace.requests().size() + " requests");
        }
        HashBlockText blocks = new HashBlockText(options.tokenizer() != null ? options.tokenizer()
                : Tokenizers.defaultTokenizer(), options.seed());
        boolean chat = options.chat();
        return GeneratedList.of(n, i -> {
            MooncakeTrace.Request r = trace.requests().get(from + i);
            ObjectNode body = JsonNodeFactory.instance.objectNode();
            String text = blocks.text(r.hashIds(), r.inputLength());
            if (chat) body.putArray("messages").addObject().put("role", "user").put("content", text);
            else body.put("prompt", text);
            body.put("max_tokens", r.outputLength());
            body.put("ignore_eos", true);
            return new Prompt(null, null, body, r.inputLength(), r.inputLength());
        }, NAME + " " + path + " from line " + from);
    }
}
