package io.unibench.engine.spec;

/**
 * One problem of a run's description, located where the user wrote it: a flag name ({@code --number}), a scenario
 * file's {@code FILE:LINE: key.path}, or a JSON pointer of the web API ({@code /points/1/parallel}).
 *
 * @param path    where: as the front end names it
 * @param message what is wrong, starting with the offending value when the text shows one
 */
public record SpecError(String path, String message) {
    /** The one line the user sees: {@code --number 0: must be ≥ 1}, {@code bench.yaml:7: levels[1]: …}. */
    public String line() {
        return path + (path.startsWith("-") ? " " : ": ") + message;
    }

    @Override
    public String toString() {
        return line();
    }
}
