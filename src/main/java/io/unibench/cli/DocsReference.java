package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The generated references of the guide: {@code docs/reference/cli.md} from the picocli model (every command's
 * {@code --help}, as the CLI prints it) and {@code docs/reference/scenario-schema.md} from {@code bench.schema.json},
 * the schema the scenario validator checks files against. One command regenerates both:
 * {@code scripts/gen-docs.sh} (it runs {@link #main}); {@code CliReferenceTest} fails when the files are stale.
 */
public final class DocsReference {
    /** The command that rewrites the files (named in the staleness test's message). */
    public static final String REGENERATE = "scripts/gen-docs.sh";
    static final Path CLI = Path.of("docs", "reference", "cli.md");
    static final Path SCHEMA = Path.of("docs", "reference", "scenario-schema.md");
    private static final String SCHEMA_RESOURCE = "/io/unibench/scenario/bench.schema.json";
    /** A fixed width: the file must not depend on the terminal it was made in. */
    private static final int WIDTH = 120;

    private DocsReference() {}

    /** Writes both references under {@code root} (default: the working directory). */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : ".");
        for (Map.Entry<Path, String> e : Map.of(CLI, cliReference(), SCHEMA, schemaReference()).entrySet()) {
            Path file = root.resolve(e.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, e.getValue(), StandardCharsets.UTF_8);
            System.out.println("wrote " + file);
        }
    }

    /** Every command and subcommand with its help, in the order {@code unibench --help} lists them. */
    static String cliReference() {
        CommandLine root = new CommandLine(new Main());
        List<CommandLine> all = new ArrayList<>();
        collect(root, all);
        StringBuilder md = new StringBuilder();
        md.append("# CLI reference\n\n<!-- Generated from the picocli model by ").append(REGENERATE)
                .append(" (io.unibench.cli.DocsReference); do not edit. -->\n\n")
                .append("Every command's `--help`, as the CLI prints it. The guide explains them by task: ")
                .append("[the guide's pages](../../README.md#the-guide).\n\n");
        for (CommandLine c : all) {
            String name = c.getCommandSpec().qualifiedName(" ");
            md.append("- [`").append(name).append("`](#").append(anchor(name)).append(")\n");
        }
        for (CommandLine c : all) {
            String name = c.getCommandSpec().qualifiedName(" ");
            c.setUsageHelpWidth(WIDTH);
            c.setUsageHelpAutoWidth(false);
            String help = c.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing();
            md.append("\n## ").append(name).append("\n\n```text\n").append(stripLineEnds(help)).append("\n```\n");
        }
        return md.toString();
    }

    private static void collect(CommandLine c, List<CommandLine> all) {
        all.add(c);
        for (CommandLine sub : c.getSubcommands().values()) {
            if (sub.getCommandSpec().name().equals("help") || all.contains(sub)) continue;
            collect(sub, all);
        }
    }

    private static String stripLineEnds(String text) {
        return String.join("\n", text.lines().map(String::stripTrailing).toList());
    }

    /** GitHub's heading anchor for a plain name: lower case, spaces to hyphens. */
    static String anchor(String heading) {
        return heading.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
    }

    /** One table per object of the shipped schema: each key, its type and constraints, and its description. */
    static String schemaReference() {
        JsonNode schema;
        try (InputStream in = DocsReference.class.getResourceAsStream(SCHEMA_RESOURCE)) {
            schema = new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StringBuilder md = new StringBuilder();
        md.append("# Scenario file reference\n\n<!-- Generated from src/main/resources").append(SCHEMA_RESOURCE)
                .append(" by ").append(REGENERATE).append(" (io.unibench.cli.DocsReference); do not edit. -->\n\n")
                .append("The keys a scenario file (`unibench run --config FILE`, the platform's documents, a ")
                .append("schedule's file) may have, generated from `bench.schema.json`: the JSON Schema the validator ")
                .append("checks every file against (an unknown key is refused with its line). What the keys do, with ")
                .append("examples: [Scenario files](../scenarios.md).\n");
        objectTable(md, "Top level", schema);
        for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("$defs").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> def = it.next();
            definition(md, def.getKey(), def.getValue());
        }
        return md.toString();
    }

    /** A {@code $defs} entry: an object's table, or the forms it may take (each object form with its table). */
    private static void definition(StringBuilder md, String name, JsonNode def) {
        if (def.has("properties")) {
            objectTable(md, "`" + name + "`", def);
            return;
        }
        md.append("\n## `").append(name).append("`\n\n");
        if (def.has("description")) md.append(cell(def.get("description").asText())).append("\n\n");
        if (def.has("oneOf")) {
            md.append("One of: ").append(type(def)).append(".");
            if (def.has("errorMessage") && def.get("errorMessage").isTextual()) {
                md.append(" Anything else is refused: ").append(cell(def.get("errorMessage").asText())).append(".");
            }
            md.append("\n");
            for (JsonNode alt : def.get("oneOf")) {
                if (alt.has("properties")) objectTable(md, "`" + name + "` as an object", alt);
            }
        } else if (def.path("additionalProperties").isObject()) {
            md.append("An object whose every key maps to: ").append(type(def.get("additionalProperties")))
                    .append(" (").append(notes(def.get("additionalProperties"))).append(").\n");
        } else {
            md.append("Type: ").append(type(def)).append(". ").append(notes(def)).append("\n");
        }
    }

    private static void objectTable(StringBuilder md, String title, JsonNode object) {
        JsonNode props = object.path("properties");
        if (props.isMissingNode() || props.isEmpty()) return;
        md.append("\n## ").append(title).append("\n\n");
        if (object.has("description")) md.append(cell(object.get("description").asText())).append("\n\n");
        List<String> required = new ArrayList<>();
        object.path("required").forEach(r -> required.add(r.asText()));
        md.append("| key | type | required | notes |\n| --- | --- | --- | --- |\n");
        StringBuilder nestedTables = new StringBuilder();
        for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> p = it.next();
            md.append("| `").append(p.getKey()).append("` | ").append(type(p.getValue())).append(" | ")
                    .append(required.contains(p.getKey()) ? "yes" : "").append(" | ").append(notes(p.getValue()))
                    .append(" |\n");
            JsonNode inner = p.getValue().has("items") ? p.getValue().get("items") : p.getValue();
            if (inner.has("properties") && !inner.has("$ref")) {
                objectTable(nestedTables, title.replace("`", "").equals("Top level") ? "`" + p.getKey() + "`"
                        : "`" + title.replace("`", "") + "." + p.getKey() + "`", inner);
            }
        }
        md.append(nestedTables);
    }

    private static String type(JsonNode node) {
        if (node.has("$ref")) return "[" + refName(node) + "](#" + refName(node) + ")";
        if (node.has("oneOf")) {
            List<String> kinds = new ArrayList<>();
            node.get("oneOf").forEach(alt -> kinds.add(type(alt)));
            return String.join(" or ", kinds);
        }
        if (node.has("not") && node.get("not").isEmpty()) return "refused";
        String t = node.has("type") ? (node.get("type").isArray() ? join(node.get("type")) : node.get("type").asText())
                : node.has("enum") ? "enum" : "any";
        if ("array".equals(t) && node.has("items")) t = "array of " + type(node.get("items"));
        return t;
    }

    private static String refName(JsonNode node) {
        String ref = node.get("$ref").asText();
        return ref.substring(ref.lastIndexOf('/') + 1);
    }

    private static String join(JsonNode array) {
        List<String> parts = new ArrayList<>();
        array.forEach(a -> parts.add(a.asText()));
        return String.join(" or ", parts);
    }

    private static String notes(JsonNode node) {
        List<String> n = new ArrayList<>();
        if (node.has("enum")) {
            List<String> values = new ArrayList<>();
            node.get("enum").forEach(v -> values.add("`" + v.asText() + "`"));
            n.add("one of " + String.join(", ", values));
        }
        for (String bound : List.of("minimum", "exclusiveMinimum", "maximum", "minLength", "minItems", "pattern")) {
            if (node.has(bound)) n.add(bound + " `" + node.get(bound).asText() + "`");
        }
        if (node.has("default")) n.add("default `" + node.get("default").asText() + "`");
        if (node.has("description")) n.add(node.get("description").asText());
        if (node.has("errorMessage") && node.get("errorMessage").isTextual()) {
            n.add("refused: " + node.get("errorMessage").asText());
        }
        return cell(String.join("; ", n));
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
