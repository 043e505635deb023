package io.unibench.workload;

import io.unibench.BadInputException;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reading a user's dataset file: every way it can be unusable is a {@link BadInputException} naming the path
 * (and the line when there is one), never a stack trace or a silent skip.
 */
final class DatasetFile {
    /** Receives one non-blank line; returns false to stop reading (the caller has enough prompts). */
    interface LineVisitor {
        boolean visit(long lineNumber, String line);
    }

    private DatasetFile() {}

    /** The path of an existing, readable, non-empty regular file. */
    static Path requireFile(String path) {
        Path p = TextFiles.requireRegularFile(path, path);
        try {
            if (Files.size(p) == 0) throw BadInputException.at(path, 0, null, "empty file");
        } catch (IOException e) {
            throw BadInputException.at(path, 0, null, "cannot read: " + e.getMessage());
        }
        return p;
    }

    /**
     * Calls {@code visitor} for each line that is not blank, in file order, with 1-based line numbers, until it
     * returns false. A file with no such line is a {@link BadInputException}.
     *
     * @return the number of non-blank lines visited
     */
    static long forEachNonBlankLine(String path, LineVisitor visitor) {
        Path p = requireFile(path);
        long lineNumber = 0;
        long visited = 0;
        try (BufferedReader reader = Files.newBufferedReader(p, StandardCharsets.UTF_8)) {
            String line;
            while ((line = reader.readLine()) != null) {
                lineNumber++;
                if (lineNumber == 1 && line.startsWith("\uFEFF")) line = line.substring(1); // byte-order mark
                if (line.isBlank()) continue;
                visited++;
                if (!visitor.visit(lineNumber, line)) break;
            }
        } catch (CharacterCodingException e) {
            throw TextFiles.notUtf8(p, path); // the exact line: the reader decodes ahead of the line it returns
        } catch (IOException e) {
            throw BadInputException.at(path, 0, null, "cannot read: " + e.getMessage());
        }
        if (visited == 0) throw BadInputException.at(path, 0, null, "has only blank lines");
        return visited;
    }

    /** The whole file as UTF-8 text, verbatim. */
    static String readAll(String path) {
        Path p = requireFile(path);
        try {
            String text = Files.readString(p, StandardCharsets.UTF_8);
            return text.startsWith("\uFEFF") ? text.substring(1) : text;
        } catch (CharacterCodingException e) {
            throw TextFiles.notUtf8(p, path);
        } catch (IOException e) {
            throw BadInputException.at(path, 0, null, "cannot read: " + e.getMessage());
        }
    }
}
