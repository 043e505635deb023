package io.unibench;

/**
 * Input the user can fix: a bad flag value, a missing or malformed file, an unknown dataset.
 * The CLI prints {@link #getMessage()} as one line on stderr and exits with code 2; never a stack trace.
 * Messages name the file, line and field when there is one, e.g. {@code data.jsonl:12: field 'question': missing}.
 */
public class BadInputException extends RuntimeException {
    public BadInputException(String message) {
        super(message, null, false, false);
    }

    public BadInputException(String message, Throwable cause) {
        super(message, cause, false, false);
    }

    /** {@code file:line: field 'name': problem}; line 0 means the file as a whole. */
    public static BadInputException at(String file, long line, String field, String problem) {
        StringBuilder sb = new StringBuilder(file);
        if (line > 0) sb.append(':').append(line);
        sb.append(": ");
        if (field != null) sb.append("field '").append(field).append("': ");
        sb.append(problem);
        return new BadInputException(sb.toString());
    }

    /**
     * A file or folder the user named that cannot be read or written, e.g. {@code --outputs-dir 'x': cannot
     * create x/run: not a directory}: the flag, the path given, and the operating system's reason in one line.
     */
    public static BadInputException io(String flag, Object given, java.io.IOException e) {
        return new BadInputException(flag + " '" + given + "': " + reason(e), e);
    }

    /** The reason of an I/O failure without its exception class: "x: Not a directory", "no such file: x". */
    public static String reason(java.io.IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException n) return "no such file or folder: " + n.getFile();
        if (e instanceof java.nio.file.AccessDeniedException a) return "permission denied: " + a.getFile();
        if (e instanceof java.nio.file.FileAlreadyExistsException x) return "exists and is not a folder: " + x.getFile();
        if (e instanceof java.nio.file.FileSystemException f) {
            return (f.getFile() != null ? f.getFile() + ": " : "") + (f.getReason() != null ? f.getReason() : "cannot access");
        }
        return String.valueOf(e.getMessage());
    }
}
