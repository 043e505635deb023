package io.unibench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code --dataset swe_smith}: long agent conversations made of real SWE-agent trajectories' user and tool messages.
 * <ul>
 *   <li>Prebuilt: {@code --dataset-path agentic_dataset.json} ({@link SweSmithFile}); the list is rotated by
 *       {@code --dataset-offset}. No tokenizer needed.</li>
 *   <li>Live: no {@code --dataset-path}, {@code --swe-smith-input FILE} (dataset arg {@code input_path}) of
 *       trajectories; built in memory by {@link SweSmithBuilder} with the run's tokenizer, seed and offset, turns
 *       {@code U[--min-turns, --max-turns]}, dataset args {@code first_turn_length} (default 65000),
 *       {@code subsequent_turn_length} (default 500), {@code chars_per_token} (3.0), {@code num_workers}.</li>
 * </ul>
 */
public final class SweSmithDataset implements ConversationDataset {
    public static final String NAME = "swe_smith";
    /** The dataset arg the CLI's {@code --swe-smith-input} is passed as. */
    public static final String INPUT_ARG = "input_path";

    @Override public String name() { return NAME; }

    @Override public List<Conversation> load(MultiTurnOptions options, int count) {
        DatasetOptions base = options.base();
        if (base.path() != null) {
            List<Conversation> all = SweSmithFile.read(base.path());
            int start = (int) Math.floorMod(base.offset(), (long) all.size());
            List<Conversation> out = new ArrayList<>(Math.min(count, all.size()));
            for (int i = 0; i < Math.min(count, all.size()); i++) out.add(all.get((start + i) % all.size()));
            return out;
        }
        JsonNode args = options.datasetArgs();
        String input = args.path(INPUT_ARG).asText(null);
        if (input == null) {
            throw new BadInputException("--dataset swe_smith needs --dataset-path (a prebuilt agentic_dataset.json) or "
                    + "--swe-smith-input (a local trajectory file to build from; nothing is downloaded)");
        }
        if (base.tokenizer() == null || base.tokenizer().isEstimate()) {
            throw new BadInputException("--dataset swe_smith with --swe-smith-input needs --tokenizer-path");
        }
        int workers = args.path("num_workers").asInt(Math.max(1, Runtime.getRuntime().availableProcessors()));
        SweSmithBuilder.Settings settings = new SweSmithBuilder.Settings(
                range(args, "first_turn_length", 65_000), range(args, "subsequent_turn_length", 500),
                options.minTurns(), options.maxTurns(), count, base.seed(),
                args.path("chars_per_token").asDouble(3.0), workers);
        List<Trajectory> trajectories = TrajectoryReader.read(input);
        SweSmithBuilder.Result result;
        try {
            result = new SweSmithBuilder(base.tokenizer(), settings).build(trajectories, base.offset(), n -> {});
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BadInputException("swe_smith build interrupted");
        }
        if (result.conversations().isEmpty()) {
            throw new BadInputException(input + ": no conversation could be built (" + result.trajectories()
                    + " trajectories, " + result.candidates() + " passed the pre-filter of " + settings.minChars()
                    + " characters, " + result.discarded() + " ran out of messages); lower the turn lengths or turns");
        }
        List<Conversation> out = new ArrayList<>();
        for (SweSmithBuilder.Built b : result.conversations()) out.add(new Conversation(b.source(), b.toTurns()));
        return out;
    }

    private static SweSmithBuilder.Range range(JsonNode args, String key, int dflt) {
        JsonNode v = args.get(key);
        if (v == null || v.isNull()) return new SweSmithBuilder.Range(dflt, dflt);
        if (v.isInt()) return new SweSmithBuilder.Range(v.intValue(), v.intValue());
        if (v.isArray() && v.size() == 2 && v.get(0).isInt() && v.get(1).isInt()) {
            return new SweSmithBuilder.Range(v.get(0).intValue(), v.get(1).intValue());
        }
        throw new BadInputException("--dataset-args " + key + ": expected N or [MIN, MAX], got " + v);
    }
}
