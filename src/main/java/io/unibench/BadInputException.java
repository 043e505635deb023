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
}
