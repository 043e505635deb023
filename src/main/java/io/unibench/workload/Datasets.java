package io.unibench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The datasets {@code --dataset NAME} can name. Adding one is one line in {@link #FACTORIES} (single-turn prompts, a
 * class implementing {@link Dataset}) or {@link #CONVERSATION_FACTORIES} (conversations for {@code --multi-turn}, a
 * class implementing {@link ConversationDataset}).
 */
public final class Datasets {
    private static final Map<String, Supplier<Dataset>> FACTORIES = factories();
    private static final Map<String, Supplier<ConversationDataset>> CONVERSATION_FACTORIES = conversationFactories();

    /** evalscope's datasets this tool does not have, each with why (so a switching user is told, not just "unknown"). */
    private static final Map<String, String> EVALSCOPE_ONLY = Map.of(
            "random_vl", "an image dataset; no image inputs are sent here",
            "flickr8k", "an image dataset from a hub; no image inputs are sent here and nothing is downloaded",
            "kontext_bench", "an image dataset from a hub; no image inputs are sent here and nothing is downloaded",
            "speed_benchmark", "Qwen's speed table; --dataset random with --min-prompt-length equal to "
                    + "--max-prompt-length measures one prompt length",
            "speed_benchmark_long", "Qwen's speed table; --dataset random with --min-prompt-length equal to "
                    + "--max-prompt-length measures one prompt length",
            "workload_trace", "its body-replay trace format; --dataset mooncake_trace replays a timestamped trace",
            "share_gpt_zh", "the single-turn form (the history sent as one request); --multi-turn --dataset "
                    + "share_gpt_zh_multi_turn sends its conversations turn by turn",
            "share_gpt_en", "the single-turn form (the history sent as one request); --multi-turn --dataset "
                    + "share_gpt_en_multi_turn sends its conversations turn by turn");

    /** The {@code --dataset-args} keys each dataset reads; evalscope's schemas refuse any other key, and so does this. */
    private static final Map<String, List<String>> ARG_KEYS = Map.of(
            SweSmithDataset.NAME, List.of(SweSmithDataset.INPUT_ARG, "first_turn_length", "subsequent_turn_length",
                    "chars_per_token", "num_workers"),
            InputOnlyDatasets.EMBEDDING_BATCH, List.of("batch_size"),
            InputOnlyDatasets.RANDOM_EMBEDDING_BATCH, List.of("batch_size"),
            InputOnlyDatasets.RANDOM_RERANK, List.of("num_documents", "document_length_ratio"));
    /** Keys of evalscope's dataset schemas (reference §1.6): named as such when a dataset here does not read them. */
    private static final Set<String> EVALSCOPE_ARG_KEYS = Set.of("target_input_len", "input_len_mode", "prefix_file",
            "prefix_role", "first_turn_length", "subsequent_turn_length", "chars_per_token", "num_workers", "speed",
            "model_override", "model_mapping", "match_output_length", "batch_size", "num_documents",
            "document_length_ratio");

    private Datasets() {}

    /**
     * Refuses a key of {@code args} (a {@code flag} JSON object, or null) that {@code dataset} does not read, so that
     * no setting is silently without effect.
     */
    public static void checkArgs(String dataset, JsonNode args, String flag) {
        if (args == null) return;
        List<String> known = ARG_KEYS.getOrDefault(dataset, List.of());
        args.fieldNames().forEachRemaining(key -> {
            if (known.contains(key)) return;
            String why = EVALSCOPE_ARG_KEYS.contains(key) ? "evalscope's key, not read by --dataset " + dataset + " here"
                    : "unknown key for --dataset " + dataset;
            throw new BadInputException(flag + ": '" + key + "': " + why + " (it reads "
                    + (known.isEmpty() ? "none" : String.join(", ", known)) + ")");
        });
    }

    private static Map<String, Supplier<Dataset>> factories() {
        Map<String, Supplier<Dataset>> m = new LinkedHashMap<>(); // insertion order is the order users see
        m.put(RandomDataset.NAME, RandomDataset::new);
        m.put(LineByLineDataset.NAME, LineByLineDataset::new);
        m.put(CustomDataset.NAME, CustomDataset::new);
        m.put(OpenQaDataset.NAME, OpenQaDataset::new);
        m.put(LongAlpacaDataset.NAME, LongAlpacaDataset::new);
        m.put(MooncakeTraceDataset.NAME, MooncakeTraceDataset::new);
        // embeddings and rerank (--api openai_embedding / openai_rerank); their knobs: InputOnlyDatasets.of
        for (String name : InputOnlyDatasets.NAMES) m.put(name, () -> InputOnlyDatasets.of(name, InputOnlyDatasets.Args.DEFAULTS));
        return java.util.Collections.unmodifiableMap(m);
    }

    private static Map<String, Supplier<ConversationDataset>> conversationFactories() {
        Map<String, Supplier<ConversationDataset>> m = new LinkedHashMap<>();
        m.put(RandomMultiTurnDataset.NAME, RandomMultiTurnDataset::new);
        m.put(ShareGptMultiTurnDataset.ZH, ShareGptMultiTurnDataset::zh);
        m.put(ShareGptMultiTurnDataset.EN, ShareGptMultiTurnDataset::en);
        m.put(CustomMultiTurnDataset.NAME, CustomMultiTurnDataset::new);
        m.put(SweSmithDataset.NAME, SweSmithDataset::new);
        m.put(TrieDataset.AGENTIC_CODING, () -> new TrieDataset(TrieDataset.AGENTIC_CODING));
        m.put(TrieDataset.CODE_QA, () -> new TrieDataset(TrieDataset.CODE_QA));
        m.put(TrieDataset.OFFICE_WORK, () -> new TrieDataset(TrieDataset.OFFICE_WORK));
        return java.util.Collections.unmodifiableMap(m);
    }

    /** A new instance of the dataset called {@code name}; an unknown name is a {@link BadInputException}. */
    public static Dataset byName(String name) {
        Supplier<Dataset> factory = name == null ? null : FACTORIES.get(name);
        if (factory == null) {
            if (isConversation(name)) {
                throw new BadInputException("--dataset " + name + " is a multi-turn dataset: add --multi-turn");
            }
            if (name != null && EVALSCOPE_ONLY.containsKey(name)) {
                throw new BadInputException("--dataset " + name + " (evalscope's) is not available: " + EVALSCOPE_ONLY.get(name));
            }
            throw new BadInputException("unknown dataset '" + name + "'; known: " + String.join(", ", names())
                    + "; with --multi-turn: " + String.join(", ", conversationNames()));
        }
        return factory.get();
    }

    /** A new instance of the conversation dataset called {@code name}; any other name is a {@link BadInputException}. */
    public static ConversationDataset conversationByName(String name) {
        Supplier<ConversationDataset> factory = name == null ? null : CONVERSATION_FACTORIES.get(name);
        if (factory == null) {
            if (name != null && FACTORIES.containsKey(name)) {
                throw new BadInputException("--dataset " + name + " is single-turn; --multi-turn needs one of: "
                        + String.join(", ", conversationNames()));
            }
            throw new BadInputException("unknown multi-turn dataset '" + name + "'; known: "
                    + String.join(", ", conversationNames()));
        }
        return factory.get();
    }

    public static boolean isConversation(String name) {
        return name != null && CONVERSATION_FACTORIES.containsKey(name);
    }

    /** Every conversation dataset name, in the order they are listed to users. */
    public static List<String> conversationNames() {
        return List.copyOf(CONVERSATION_FACTORIES.keySet());
    }

    /** Every known name, in the order they are listed to users. */
    public static List<String> names() {
        return List.copyOf(FACTORIES.keySet());
    }
}
