package io.unibench.engine.spec;

import io.unibench.BadInputException;
import io.unibench.engine.spec.SpecPaths.Field;

import java.util.ArrayList;
import java.util.List;

/**
 * The one set of rules every front end's description of a run passes before a {@link RunSpec} is made from it:
 * load points, sampling parameters, timeouts. Each check adds a {@link SpecError} located by the front end's
 * {@link SpecPaths}; {@link #throwFirst} turns them into the one line of bad input. The texts are those {@code perf}
 * has always printed ({@code --number 0: must be ≥ 1}); a scenario file shows them after its {@code FILE:LINE: key}.
 */
public final class SpecRules {
    private final SpecPaths paths;
    private final List<SpecError> errors = new ArrayList<>();

    public SpecRules(SpecPaths paths) {
        this.paths = paths;
    }

    public List<SpecError> errors() {
        return List.copyOf(errors);
    }

    /** Throws the first error as {@link BadInputException} (one line, exit 2); nothing when there is none. */
    public void throwFirst() {
        if (!errors.isEmpty()) throw new BadInputException(errors.getFirst().line());
    }

    private void add(Field field, int index, String message) {
        errors.add(new SpecError(paths.path(field, index), message));
    }

    /**
     * One load point's figures: {@code rate} -1 = unpaced; {@code durationSeconds} null = none; {@code warmup} a
     * count, or a share of {@code number} below 1 (evalscope's rule).
     */
    public SpecRules point(int index, int parallel, int number, double rate, Double durationSeconds, double warmup) {
        if (number < 1) add(Field.NUMBER, index, number + ": must be ≥ 1");
        if (parallel < 1) add(Field.PARALLEL, index, parallel + ": must be ≥ 1");
        if (rate != -1 && !(rate > 0)) add(Field.RATE, index, rate + ": must be > 0, or -1 for none");
        if (durationSeconds != null && !(durationSeconds > 0)) add(Field.DURATION, index, "must be > 0 seconds");
        if (warmup < 0) add(Field.WARMUP, index, "must be ≥ 0");
        return this;
    }

    /** The pause after a point (between sweep points or levels), in seconds. */
    public SpecRules pause(int index, double seconds) {
        if (!(seconds >= 0)) add(Field.PAUSE, index, "must be ≥ 0");
        return this;
    }

    /** Sampling: max tokens (one value, or MIN and MAX of a range), min tokens, temperature, top-p, top-k. */
    public SpecRules generation(List<Integer> maxTokens, Integer minTokens, double temperature, Double topP,
                                Integer topK) {
        int min = maxTokens.getFirst();
        int max = maxTokens.size() > 1 ? maxTokens.get(1) : min;
        if (min < 1 || max < min) add(Field.MAX_TOKENS, 0, maxTokens + ": need 1 ≤ MIN ≤ MAX");
        if (minTokens != null && minTokens < 0) add(Field.MIN_TOKENS, 0, minTokens + ": must be ≥ 0");
        if (!(temperature >= 0) || Double.isInfinite(temperature)) add(Field.TEMPERATURE, 0, temperature + ": must be ≥ 0");
        if (topP != null && !(topP > 0 && topP <= 1)) add(Field.TOP_P, 0, topP + ": must be in (0, 1]");
        if (topK != null && topK < -1) add(Field.TOP_K, 0, topK + ": must be ≥ 1, or -1 (or 0) for none");
        return this;
    }

    /** A target's timeouts in seconds; null = the default. The total timeout, when given, must be > 0. */
    public SpecRules timeouts(int target, Double connect, Double read, Double total) {
        if (connect != null && !(connect > 0 && connect < 1e9)) add(Field.CONNECT_TIMEOUT, target, connect + ": must be > 0 seconds");
        if (read != null && !(read > 0 && read < 1e9)) add(Field.READ_TIMEOUT, target, read + ": must be > 0 seconds");
        if (total != null && !(total > 0)) add(Field.TOTAL_TIMEOUT, target, "must be > 0");
        return this;
    }
}
