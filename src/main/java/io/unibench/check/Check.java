package io.unibench.check;

/** One check of the battery. Implementations are stateless; everything they need is in the {@link Target}. */
interface Check {
    /** The id of {@code --only}/{@code --skip} and of the report, e.g. {@code stream-format}. */
    String id();

    /** Whether it puts load on the server (skipped without {@code --allow-load}). */
    default boolean load() { return false; }

    Verdict run(Target target) throws InterruptedException;
}
