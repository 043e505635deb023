package io.unibench.scenario;

import io.unibench.BadInputException;

import java.util.List;

/**
 * A scenario document that cannot run, with every problem found and where: the CLI prints the one-line message
 * (the first problem in file order and the count of the others), the web service returns the whole list so an
 * editor can show each message beside its line.
 */
public final class ScenarioProblems extends BadInputException {
    /**
     * @param path    the key path ({@code providers[0].base_url}; {@code ""} for the document as a whole)
     * @param line    1-based line of the key in the document, 0 when unknown
     * @param message what is wrong
     */
    public record Problem(String path, int line, String message) {}

    private final List<Problem> problems;

    ScenarioProblems(String message, List<Problem> problems) {
        super(message);
        this.problems = List.copyOf(problems);
    }

    /** In file order. */
    public List<Problem> problems() {
        return problems;
    }
}
