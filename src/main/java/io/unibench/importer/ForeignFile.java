package io.unibench.importer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.BadInputException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** One file of another tool, read once: its bytes' SHA-256, its JSON, and located errors (file, JSON pointer). */
final class ForeignFile {
    /**
     * Strict about duplicate keys; reads the {@code NaN}/{@code Infinity} that Python's {@code json} writes (evalscope's
     * percentile of a metric without values, such as the ITL of a run that did not stream): a NaN is no figure.
     */
    static final ObjectMapper MAPPER = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    static final ObjectMapper YAML = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper()
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /**
     * YAML's non-finite floats ({@code concurrency: .inf}), which Jackson's YAML parser cannot read as numbers: kept
     * as the text they are ({@code ".inf"}), which a reader takes as "no number" (unbounded).
     */
    private static final java.util.regex.Pattern NON_FINITE = java.util.regex.Pattern.compile(
            "(?m)(:\\s+)([-+]?\\.(?:inf|Inf|INF|nan|NaN|NAN))\\s*$");

    final Path path;
    final byte[] bytes;
    final String sha256;

    private ForeignFile(Path path, byte[] bytes) {
        this.path = path;
        this.bytes = bytes;
        this.sha256 = sha256(bytes);
    }

    static ForeignFile read(Path path) {
        try {
            return new ForeignFile(path, Files.readAllBytes(path));
        } catch (IOException e) {
            throw BadInputException.io("runs import", path, e);
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The file's JSON; bad input naming the file and line when it is not JSON. */
    JsonNode json() {
        try {
            String name = path.getFileName().toString();
            JsonNode n = name.endsWith(".yaml") || name.endsWith(".yml")
                    ? YAML.readTree(NON_FINITE.matcher(new String(bytes, java.nio.charset.StandardCharsets.UTF_8))
                    .replaceAll("$1\"$2\"")) : MAPPER.readTree(bytes);
            if (n == null) throw error("", "empty file, expected JSON");
            return n;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            long line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw new BadInputException(path + (line > 0 ? ":" + line : "") + ": not " + (path.toString().matches(".*\\.ya?ml$") ? "YAML" : "JSON") + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw BadInputException.io("runs import", path, e);
        }
    }

    /** The JSON pointer of an object member ({@code /} and {@code ~} escaped as RFC 6901 says). */
    static String member(String key) {
        return "/" + key.replace("~", "~0").replace("/", "~1");
    }

    /** One located line: {@code file: /pointer: problem}. */
    BadInputException error(String pointer, String problem) {
        return new BadInputException(path + ": " + (pointer.isEmpty() ? "/" : pointer) + ": " + problem);
    }

    /** The number at {@code pointer}; bad input when it is missing or not a number. */
    double number(JsonNode root, String pointer) {
        JsonNode n = root.at(pointer);
        if (n.isMissingNode() || n.isNull()) throw error(pointer, "missing, expected a number");
        if (n.isNumber() && Double.isNaN(n.asDouble())) throw error(pointer, "NaN, expected a number");
        if (n.isNumber()) return n.asDouble();
        if (n.isTextual() && n.asText().equals("inf")) return Double.POSITIVE_INFINITY;
        throw error(pointer, "expected a number, found " + n.getNodeType().name().toLowerCase(java.util.Locale.ROOT)
                + " " + abbreviate(n.toString()));
    }

    /** The number at {@code pointer}, or null when it is missing, null or NaN (a figure the tool did not give). */
    Double optNumber(JsonNode root, String pointer) {
        JsonNode n = root.at(pointer);
        if (n.isMissingNode() || n.isNull() || (n.isNumber() && Double.isNaN(n.asDouble()))) return null;
        return number(root, pointer);
    }

    /** The array at {@code pointer} of {@code size} elements; bad input otherwise. */
    JsonNode array(JsonNode root, String pointer, int size) {
        JsonNode n = root.at(pointer);
        if (!n.isArray()) throw error(pointer, "missing, expected an array");
        if (size >= 0 && n.size() != size) {
            throw error(pointer, "has " + n.size() + " elements, expected " + size);
        }
        return n;
    }

    static String abbreviate(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }
}
