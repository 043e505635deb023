package io.unibench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A file the run writes could not be written (disk full, permissions, a folder gone): the run ends as a stop does
 * (no request starts after it, those in flight are recorded), the report of what was measured is printed on the
 * terminal, then {@link #getMessage()} as one line ({@code cannot write FILE: No space left on device}); the CLI
 * exits with code 5. Never a stack trace, never a file cut in the middle of a record: {@code requests.jsonl} keeps
 * only whole lines, the other files are written whole ({@link #writeWhole}) or not at all.
 */
public class OutputFailedException extends UncheckedIOException {
    private final transient Path file;

    public OutputFailedException(Path file, IOException cause) {
        super("cannot write " + file + ": " + reason(file, cause), cause);
        this.file = file;
    }

    /** The file that could not be written. */
    public Path file() {
        return file;
    }

    /**
     * Writes {@code bytes} as the whole content of {@code file}: into a temporary sibling, then renamed over it, so a
     * reader never sees half of it and a failure leaves no cut file (the temporary one is removed).
     */
    public static void writeWhole(Path file, byte[] bytes) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.write(tmp, bytes);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the write already failed; that is the line the user gets
            }
            throw new OutputFailedException(file, e);
        }
    }

    /** The operating system's reason, without the file name again when it is the file's own. */
    private static String reason(Path file, IOException e) {
        String r = BadInputException.reason(e);
        String prefix = file + ".tmp: ";
        return r.startsWith(prefix) ? r.substring(prefix.length()) : r.startsWith(file + ": ")
                ? r.substring(file.toString().length() + 2) : r;
    }
}
