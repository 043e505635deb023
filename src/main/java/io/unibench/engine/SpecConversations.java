package io.unibench.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.client.LlmClient;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Conversation;
import io.unibench.workload.ConversationDataset;
import io.unibench.workload.DatasetOptions;
import io.unibench.workload.Datasets;
import io.unibench.workload.MultiTurnOptions;
import io.unibench.workload.Prompt;

import java.util.List;
import java.util.Locale;

/**
 * A multi-turn workload of a spec ({@code perf --multi-turn}): loads each point's conversations from the workload's
 * options and runs them with {@link MultiTurnRunner} (a composed workload's are {@link WorkloadPrompts}'). {@link
 * SpecPoints} does everything else (target, outputs) the same way for both modes; it asks this class only where the
 * modes differ.
 */
final class SpecConversations {
    CancelPolicy cancels = CancelPolicy.NONE; // --cancel-rate
    RunSpec.Retry retry; // --retry-on, null = never
    RequestHooks hooks = RequestHooks.NONE; // the spec's start gate and validate rules


    /** The single-turn request factory is still used for the connection test; it needs one prompt to exist. */
    static final List<Prompt> PROBE_ONLY = List.of(Prompt.ofText("hello", -1, -1));

    private final RunSpec.Workload workload;
    private final RunSpec.Conversations shape;
    private final boolean chatMessages;
    private final long seed;
    private final Tokenizer tokenizer;
    private final Tokenizer userTokenizer;
    private final ConversationDataset dataset;
    private final MultiTurnPlan.RateMode rateMode;
    private final ObjectNode datasetArgs;
    private List<Conversation> conversations;

    private SpecConversations(RunSpec spec, int w, RunSpec.Conversations shape, Tokenizer tokenizer,
                              Tokenizer userTokenizer, ConversationDataset dataset, MultiTurnPlan.RateMode rateMode,
                              ObjectNode datasetArgs) {
        this.workload = spec.workloads().get(w);
        this.shape = shape;
        this.chatMessages = targetOf(spec, w).api().chatMessages();
        this.seed = spec.seed();
        this.tokenizer = tokenizer;
        this.userTokenizer = userTokenizer;
        this.dataset = dataset;
        this.rateMode = rateMode;
        this.datasetArgs = datasetArgs;
    }

    /** The target of workload {@code w}'s first point (the first target when none names it). */
    static RunSpec.Target targetOf(RunSpec spec, int w) {
        return spec.points().stream().filter(p -> p.workload() == w).findFirst().map(spec::target)
                .orElse(spec.targets().getFirst());
    }

    /**
     * Workload {@code index}'s conversations, or {@code null} when it is single-turn. Loads its first point's
     * conversations ({@code firstCount} from dataset index {@code firstOffset}), so a bad dataset fails before
     * anything starts.
     */
    static SpecConversations create(RunSpec spec, int index, Tokenizer userTokenizer, int firstCount, long firstOffset) {
        RunSpec.Workload w = spec.workloads().get(index);
        if (!w.multiTurn()) return null;
        if (w.prompt() != null) throw new BadInputException("--prompt cannot be used with --multi-turn (use a dataset)");
        RunSpec.Conversations c = w.options().conversations() != null ? w.options().conversations()
                : new RunSpec.Conversations(null, null, null, null, null, null, null, null);
        ConversationDataset dataset = Datasets.conversationByName(w.dataset());
        int minTurns = c.minTurns() == null ? 1 : c.minTurns();
        if (minTurns < 1) throw new BadInputException("--min-turns " + minTurns + ": must be >= 1");
        if (c.maxTurns() != null && c.maxTurns() < 1) throw new BadInputException("--max-turns " + c.maxTurns() + ": must be >= 1");
        MultiTurnPlan.RateMode mode = switch (c.rateMode() == null ? "think" : c.rateMode().toLowerCase(Locale.ROOT)) {
            case "think" -> MultiTurnPlan.RateMode.THINK;
            case "arrival" -> MultiTurnPlan.RateMode.ARRIVAL;
            default -> throw new BadInputException("--rate-mode '" + c.rateMode() + "': expected think or arrival");
        };
        ObjectNode args = io.unibench.workload.Json.object("--dataset-args", w.options().args());
        if (c.args() != null) { // --multi-turn-args: its keys where --dataset-args has none
            ObjectNode legacy = io.unibench.workload.Json.object("--multi-turn-args", c.args());
            legacy.properties().forEach(e -> args.putIfAbsent(e.getKey(), e.getValue()));
        }
        Datasets.checkArgs(dataset.name(), args, c.args() != null ? "--dataset-args/--multi-turn-args" : "--dataset-args");
        AgenticFlags.apply(c, args);
        // synthesized conversations need a tokenizer; without --tokenizer-path the bundled default is used
        Tokenizer tokenizer = userTokenizer == null && AgenticFlags.synthesizes(dataset.name())
                ? Tokenizers.defaultTokenizer() : userTokenizer;
        SpecConversations perf = new SpecConversations(spec, index, c, tokenizer, userTokenizer, dataset, mode, args);
        perf.prepare(firstOffset, firstCount);
        return perf;
    }


    /** Loads the conversations of the next point: up to {@code count} at dataset offset {@code offset}. */
    void prepare(long offset, int count) {
        DatasetOptions base = new DatasetOptions(workload.datasetPath(), offset, workload.minPromptLength(),
                workload.maxPromptLength(), workload.options().prefixLength(), tokenizer, chatMessages, seed);
        conversations = dataset.load(new MultiTurnOptions(base, shape.minTurns() == null ? 1 : shape.minTurns(),
                shape.maxTurns(), datasetArgs), AgenticFlags.poolSize(shape, count));
    }

    /** Runs the prepared conversations at {@code plan}; records go to {@code sinks}. */
    RunOutcome run(LlmClient client, StopSignal stop, LoadPlan plan, List<? extends RecordSink> sinks, long seed)
            throws InterruptedException {
        // token counts when the server sends no usage: as in single-turn mode (see RecordFactory)
        RecordFactory records = new RecordFactory(userTokenizer != null ? userTokenizer
                : AgenticFlags.estimate(workload.options().charsPerToken()), userTokenizer != null);
        MultiTurnRunner runner = cancels.multiTurnRunner(client, records, stop, retry, seed, hooks);
        ConversationRequests requests = new ConversationRequests(workload.generation(), seed,
                Long.toString(System.currentTimeMillis(), 36));
        return runner.run(new MultiTurnPlan(plan, rateMode, shape.maxTurns(),
                        AgenticFlags.toolLatencyScale(shape.toolLatencyScale())),
                new ConversationPool(conversations),
                requests, sinks, seed);
    }

    /** Progress counts conversations (the unit of --number): only the record that ends one is passed on. */
    static RecordSink conversationProgress(RecordSink progress) {
        return new RecordSink() {
            @Override public void accept(RequestRecord record) {
                if (record.position().lastTurn()) progress.accept(record);
            }

            @Override public void close() {
                progress.close();
            }
        };
    }
}
