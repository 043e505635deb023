package io.unibench.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.BadInputException;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * The folders whose files a run created through the service may read ({@code serve --data-dir DIR}, repeatable, or
 * {@code UNIBENCH_DATA_DIRS}, path-separated; always the project's bundled {@code examples/data} when the service runs
 * where it is). A posted run spec or scenario document (and a schedule's) names server-side files — datasets, a
 * {@code @FILE} prompt, a tokenizer, a CA certificate — whose content the run would send to a target the requester
 * chose: every such field ({@link #fields}) must resolve, symlinks and {@code ..} followed ({@code toRealPath}), inside
 * one of these folders, or the document is refused at its pointer before anything reads it. The refusal is the same
 * whether the file exists or not, so it tells nothing about the service's disk.
 */
public final class DataDirs {
    /** The variable read when no {@code --data-dir} is given: folders separated by the platform's path separator. */
    public static final String ENV = "UNIBENCH_DATA_DIRS";
    /** The project's bundled datasets, which the examples name relative to the project's folder. */
    static final String BUNDLED = "examples/data";
    /** Tokenizers bundled by name ({@code tokenizer_path}): no file is read for them. */
    private static final Set<String> BUNDLED_TOKENIZERS = Set.of("cl100k_base", "o200k_base", "p50k_base",
            "p50k_edit", "r50k_base");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path base;
    private final List<Path> dirs;

    private DataDirs(Path base, List<Path> dirs) {
        this.base = base;
        this.dirs = List.copyOf(dirs);
    }

    /** Only the bundled datasets, relative to the working directory (the default with no flag and no variable). */
    public static DataDirs bundled() {
        return of(List.of(), Path.of("").toAbsolutePath(), "--data-dir");
    }

    /**
     * The given folders (each must exist) plus the bundled datasets under {@code base}, the folder relative paths
     * are read from (the service's working directory).
     */
    public static DataDirs of(List<String> given, Path base, String flag) {
        List<Path> dirs = new ArrayList<>();
        for (String d : given) {
            if (d.isBlank()) continue;
            try {
                Path p = base.resolve(d);
                if (!Files.isDirectory(p)) throw new BadInputException(flag + " " + d + ": not a folder");
                dirs.add(p.toRealPath());
            } catch (InvalidPathException | IOException e) {
                throw new BadInputException(flag + " " + d + ": not a readable folder");
            }
        }
        try {
            Path bundled = base.resolve(BUNDLED);
            if (Files.isDirectory(bundled)) dirs.add(bundled.toRealPath());
        } catch (IOException e) {
            // no bundled datasets here
        }
        return new DataDirs(base, dirs);
    }

    /** The flag's folders, else the variable's ({@link #ENV}), each plus the bundled datasets. */
    public static DataDirs of(List<String> flag, String variable, Path base) {
        if (flag != null && !flag.isEmpty()) return of(flag, base, "--data-dir");
        if (variable != null && !variable.isBlank()) return of(List.of(variable.split(File.pathSeparator)), base, ENV);
        return of(List.of(), base, "--data-dir");
    }

    /**
     * True when {@code value} names a file (or folder) inside one of the folders: the real path of its longest
     * existing part (symlinks and {@code ..} resolved) followed by the rest, normalized.
     */
    boolean allows(String value) {
        Path p;
        try {
            p = base.resolve(value);
        } catch (InvalidPathException e) {
            return false;
        }
        Path real = realPath(p);
        if (real == null) return false;
        for (Path d : dirs) if (real.startsWith(d)) return true;
        return false;
    }

    private static Path realPath(Path p) {
        Path existing = p;
        List<Path> rest = new ArrayList<>();
        while (existing != null) {
            try {
                Path real = existing.toRealPath();
                for (int i = rest.size() - 1; i >= 0; i--) real = real.resolve(rest.get(i));
                return real.normalize();
            } catch (IOException e) {
                if (existing.getFileName() != null) rest.add(existing.getFileName());
                existing = existing.getParent();
            }
        }
        return null;
    }

    /** One field of a document that names a server-side file. */
    record FileField(String pointer, String dotted, String value) {}

    /**
     * Every field of a run spec ({@code spec_version}) or a scenario document that names a file on the service's
     * disk: a scenario's {@code dataset_path} and {@code @FILE} prompt, a provider's {@code ca_cert}; a spec
     * workload's {@code dataset_path}, {@code @FILE} prompt, {@code options.tokenizer_path} (unless a bundled
     * tokenizer's name), {@code options.conversations.swe_smith_input} and the {@code input_path} of its dataset
     * args. A spec's trusted CAs travel as certificates, not paths.
     */
    static List<FileField> fields(JsonNode tree) {
        List<FileField> out = new ArrayList<>();
        if (tree == null || !tree.isObject()) return out;
        if (tree.has("spec_version")) {
            JsonNode w = tree.path("workloads");
            for (int i = 0; i < w.size(); i++) {
                String at = "/workloads/" + i;
                JsonNode n = w.get(i);
                text(out, at + "/dataset_path", n.path("dataset_path"));
                prompt(out, at + "/prompt", n.path("prompt"));
                JsonNode o = n.path("options");
                JsonNode tok = o.path("tokenizer_path");
                if (tok.isTextual() && !BUNDLED_TOKENIZERS.contains(tok.asText())) text(out, at + "/options/tokenizer_path", tok);
                text(out, at + "/options/conversations/swe_smith_input", o.path("conversations").path("swe_smith_input"));
                argsPath(out, at + "/options/args", o.path("args"));
                argsPath(out, at + "/options/conversations/args", o.path("conversations").path("args"));
            }
            return out;
        }
        if (tree.has("provider")) text(out, "/provider/ca_cert", tree.path("provider").path("ca_cert"));
        JsonNode ps = tree.path("providers");
        for (int i = 0; i < ps.size(); i++) text(out, "/providers/" + i + "/ca_cert", ps.get(i).path("ca_cert"));
        JsonNode ss = tree.path("scenarios");
        for (int i = 0; i < ss.size(); i++) {
            text(out, "/scenarios/" + i + "/dataset_path", ss.get(i).path("dataset_path"));
            prompt(out, "/scenarios/" + i + "/prompt", ss.get(i).path("prompt"));
        }
        return out;
    }

    private static void text(List<FileField> out, String pointer, JsonNode n) {
        if (n.isTextual()) out.add(new FileField(pointer, dotted(pointer), n.asText()));
    }

    private static void prompt(List<FileField> out, String pointer, JsonNode n) {
        if (n.isTextual() && n.asText().startsWith("@")) {
            out.add(new FileField(pointer, dotted(pointer), n.asText().substring(1)));
        }
    }

    /** Dataset args as a JSON object in a string: its {@code input_path} (swe_smith's input file). */
    private static void argsPath(List<FileField> out, String pointer, JsonNode n) {
        if (!n.isTextual()) return;
        try {
            JsonNode args = JSON.readTree(n.asText());
            if (args != null && args.path("input_path").isTextual()) {
                out.add(new FileField(pointer, dotted(pointer), args.get("input_path").asText()));
            }
        } catch (JsonProcessingException e) {
            // not JSON: the spec's own rules refuse it, and nothing reads a path from it
        }
    }

    /** {@code /scenarios/0/dataset_path} → {@code scenarios[0].dataset_path}, the scenario reader's paths. */
    static String dotted(String pointer) {
        StringBuilder sb = new StringBuilder();
        for (String part : pointer.substring(1).split("/")) {
            if (part.chars().allMatch(Character::isDigit)) sb.append('[').append(part).append(']');
            else sb.append(sb.isEmpty() ? "" : ".").append(part);
        }
        return sb.toString();
    }

    /**
     * The service's rule, for run specs, scenario documents and schedules alike: each file-naming field of
     * {@code tree} outside the folders, by its pointer ({@code line} gives a YAML document's line, 0 for JSON).
     * The message is the same whether the file exists or not.
     */
    List<ScenarioDocument.Problem> refusals(JsonNode tree, ToIntFunction<String> line) {
        List<ScenarioDocument.Problem> out = new ArrayList<>();
        for (FileField f : fields(tree)) {
            if (allows(f.value())) continue;
            out.add(new ScenarioDocument.Problem(f.pointer(), line.applyAsInt(f.dotted()), "'" + f.value()
                    + "' is outside this service's data folders: a run created through the service reads files only "
                    + "under serve --data-dir DIR (or " + ENV + ")"));
        }
        return out;
    }
}
