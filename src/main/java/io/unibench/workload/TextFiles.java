package io.unibench.workload;

import io.unibench.BadInputException;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A text file the user named (a dataset, a scenario or schedule file): it must be a regular file (not a folder, a
 * device such as {@code /dev/zero}, or a pipe) and UTF-8 text. Each way it is not is one {@link BadInputException}
 * naming the file, and for bytes that are not UTF-8 the exact line and column: {@code bench.yaml:3: not UTF-8 text
 * (byte 0xE9 at column 7; save the file as UTF-8)}.
 */
public final class TextFiles {
    private TextFiles() {}

    /** The path of an existing, readable regular file; {@code shown} is how messages name it. */
    public static Path requireRegularFile(String path, String shown) {
        Path p;
        try {
            p = Path.of(path);
        } catch (InvalidPathException e) {
            throw BadInputException.at(shown, 0, null, "not a valid path: " + e.getReason());
        }
        if (!Files.exists(p)) throw BadInputException.at(shown, 0, null, "no such file");
        if (Files.isDirectory(p)) throw BadInputException.at(shown, 0, null, "is a directory, not a file");
        if (!Files.isRegularFile(p)) {
            throw BadInputException.at(shown, 0, null, "not a regular file (a device, pipe or socket): give a text file");
        }
        if (!Files.isReadable(p)) throw BadInputException.at(shown, 0, null, "not readable (check permissions)");
        return p;
    }

    /** The whole file as UTF-8 text, without a leading byte-order mark. */
    public static String readUtf8(String path, String shown) {
        Path p = requireRegularFile(path, shown);
        try {
            String text = Files.readString(p, StandardCharsets.UTF_8);
            return text.startsWith("\uFEFF") ? text.substring(1) : text;
        } catch (CharacterCodingException e) {
            throw notUtf8(p, shown);
        } catch (NoSuchFileException e) {
            throw BadInputException.at(shown, 0, null, "no such file");
        } catch (IOException e) {
            throw BadInputException.at(shown, 0, null, "cannot read: " + BadInputException.reason(e));
        }
    }

    /**
     * The error for a file that failed to decode as UTF-8, at its first bad byte: the file is read again line by line
     * (the error path only), since a decoding reader reads ahead of the line it returns.
     */
    static BadInputException notUtf8(Path p, String shown) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try (InputStream in = new BufferedInputStream(Files.newInputStream(p))) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            long number = 1;
            for (int b = in.read(); ; b = in.read()) {
                if (b == -1 || b == '\n') {
                    String where = firstBadByte(decoder, line.toByteArray());
                    if (where != null) {
                        return BadInputException.at(shown, number, null, "not UTF-8 text (" + where
                                + "; save the file as UTF-8)");
                    }
                    if (b == -1) break;
                    number++;
                    line.reset();
                } else {
                    line.write(b);
                }
            }
        } catch (IOException e) {
            return BadInputException.at(shown, 0, null, "cannot read: " + BadInputException.reason(e));
        }
        return BadInputException.at(shown, 0, null, "not UTF-8 text (save the file as UTF-8)");
    }

    /** "byte 0xE9 at column 7" for the first byte of {@code line} that is not UTF-8; null when it all decodes. */
    private static String firstBadByte(CharsetDecoder decoder, byte[] line) {
        decoder.reset();
        ByteBuffer in = ByteBuffer.wrap(line);
        CharBuffer out = CharBuffer.allocate(line.length + 1);
        CoderResult r = decoder.decode(in, out, true);
        if (!r.isError()) r = decoder.flush(out);
        if (!r.isError()) return null;
        int at = Math.min(in.position(), line.length - 1);
        return String.format(Locale.ROOT, "byte 0x%02X at column %d", line[Math.max(at, 0)] & 0xFF,
                out.position() + 1);
    }
}
