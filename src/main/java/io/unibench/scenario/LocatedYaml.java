package io.unibench.scenario;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.unibench.BadInputException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML document as a JSON tree plus the line of every key and list item, so errors can say
 * {@code bench.yaml:12: providers[1].price.output: ...}. Paths: {@code a.b}, {@code a[0].b}; the root is {@code ""}.
 * Built with Jackson's streaming YAML parser, which knows each token's location. Public for the schedule package,
 * whose {@code alerts:}/{@code notify:} sections of the same document report their errors the same way.
 */
public final class LocatedYaml {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** YAML's merge key ({@code <<: *defaults}). */
    private static final String MERGE_KEY = "<<";
    /** The most values aliases may copy into one document (a "billion laughs" file is refused, not expanded). */
    static final long MAX_ALIAS_NODES = 100_000;

    private final String fileName;
    private final JsonNode root;
    private final Map<String, Integer> lines;

    private LocatedYaml(String fileName, JsonNode root, Map<String, Integer> lines) {
        this.fileName = fileName;
        this.root = root;
        this.lines = lines;
    }

    public static LocatedYaml parse(String fileName, String text) {
        YAMLFactory factory = YAMLFactory.builder().build();
        Map<String, Integer> lines = new HashMap<>();
        try (JsonParser p = factory.createParser(text)) {
            p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
            JsonToken t = p.nextToken();
            if (t == null) throw problem(fileName, 0, "the file is empty");
            JsonNode root = new Reader(fileName, (YAMLParser) p, lines, Anchors.of(text)).read("");
            if (p.nextToken() != null) {
                throw problem(fileName, p.currentLocation().getLineNr(), "only one YAML document is allowed");
            }
            return new LocatedYaml(fileName, root, lines);
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw problem(fileName, line, "YAML syntax error: "
                    + e.getOriginalMessage().lines().findFirst().orElse("").trim());
        } catch (IOException e) {
            throw new BadInputException(fileName + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** A document that is not one YAML value: {@code file:line: problem}, located for the web's editor. */
    private static ScenarioProblems problem(String fileName, int line, String message) {
        return new ScenarioProblems(fileName + (line > 0 ? ":" + line : "") + ": " + message,
                List.of(new ScenarioProblems.Problem("", line, message)));
    }

    /**
     * Where the document's anchors are: Jackson's streaming parser reports the anchor of a list or mapping but
     * drops a scalar's ({@code model: &mod qwen-plus}), so the events of SnakeYAML, the parser under Jackson's, are
     * read first and each anchor is keyed by the character offset where its node starts, the offset Jackson gives
     * the node's token. Only when the text has a {@code &} or {@code *} at all; a document SnakeYAML cannot read is
     * left to Jackson's pass, which reports its syntax error.
     */
    private record Anchors(Map<Long, String> scalars, Map<Long, String> mappings, Map<Long, String> lists,
                           java.util.Set<Long> aliases) {
        static Anchors of(String text) {
            Anchors a = new Anchors(new HashMap<>(), new HashMap<>(), new HashMap<>(), new java.util.HashSet<>());
            if (text.indexOf('&') < 0 && text.indexOf('*') < 0) return a;
            try {
                var events = new org.yaml.snakeyaml.parser.ParserImpl(
                        new org.yaml.snakeyaml.reader.StreamReader(text), new org.yaml.snakeyaml.LoaderOptions());
                while (events.peekEvent() != null) {
                    var e = events.getEvent();
                    long at = e.getStartMark().getIndex();
                    if (e instanceof org.yaml.snakeyaml.events.AliasEvent) a.aliases.add(at);
                    else if (e instanceof org.yaml.snakeyaml.events.NodeEvent n && n.getAnchor() != null) {
                        (e instanceof org.yaml.snakeyaml.events.ScalarEvent ? a.scalars
                                : e instanceof org.yaml.snakeyaml.events.MappingStartEvent ? a.mappings : a.lists)
                                .put(at, n.getAnchor());
                    }
                    if (e instanceof org.yaml.snakeyaml.events.StreamEndEvent) break;
                }
            } catch (org.yaml.snakeyaml.error.YAMLException e) {
                // Jackson's pass reports it, with its line
            }
            return a;
        }

        /** The anchor of the value token starting at {@code offset}, if any (a key's anchor is not a value's). */
        String anchor(long offset, JsonToken t) {
            return switch (t) {
                case START_OBJECT -> mappings.get(offset);
                case START_ARRAY -> lists.get(offset);
                default -> scalars.get(offset);
            };
        }

        boolean isAlias(long offset) {
            return aliases.contains(offset);
        }
    }

    /**
     * The tree of one document, with YAML's anchors and aliases resolved as YAML means them: {@code *name} is a
     * copy of the value anchored {@code &name} before it (a scalar, a list or a mapping), and a merge key
     * {@code <<: *name} (or {@code <<: [*a, *b]}, or an inline mapping) adds the merged mappings' keys that the
     * mapping does not set itself (the first merged mapping wins over later ones). Jackson's streaming parser gives
     * an alias as the anchor's name in a string token, and a merge key as a key named {@code <<}: read naively,
     * {@code model: *mod} would be the model "mod". A value that came from an alias is located at the alias.
     * Aliases may copy at most {@link #MAX_ALIAS_NODES} values in all (a document of nested aliases would
     * otherwise grow exponentially).
     */
    private static final class Reader {
        private final String fileName;
        private final YAMLParser p;
        private final Map<String, Integer> lines;
        private final Anchors marks;
        private final Map<String, JsonNode> anchors = new HashMap<>();
        private long aliasNodes;

        Reader(String fileName, YAMLParser p, Map<String, Integer> lines, Anchors marks) {
            this.fileName = fileName;
            this.p = p;
            this.lines = lines;
            this.marks = marks;
        }

        JsonNode read(String path) throws IOException {
            int line = p.currentTokenLocation().getLineNr();
            lines.putIfAbsent(path, line);
            if (p.isCurrentAlias()) return alias(line);
            String anchor = marks.anchor(p.currentTokenLocation().getCharOffset(), p.currentToken());
            JsonNode value = value(path);
            if (anchor != null) anchors.put(anchor, value);
            return value;
        }

        private JsonNode value(String path) throws IOException {
            JsonToken t = p.currentToken();
            switch (t) {
                case START_OBJECT -> {
                    ObjectNode o = NODES.objectNode();
                    List<ObjectNode> merged = new ArrayList<>();
                    int mergeLine = 0;
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String key = p.currentName();
                        int keyLine = p.currentTokenLocation().getLineNr();
                        if (marks.isAlias(p.currentTokenLocation().getCharOffset())) {
                            throw problem(fileName, keyLine, "an alias as a key (*" + key + ") is not supported");
                        }
                        p.nextToken();
                        if (key.equals(MERGE_KEY)) {
                            mergeLine = keyLine;
                            merged.addAll(mergeSources(path, keyLine));
                            continue;
                        }
                        String child = path.isEmpty() ? key : path + "." + key;
                        lines.put(child, keyLine);
                        o.set(key, read(child));
                    }
                    for (ObjectNode m : merged) {
                        for (var e : m.properties()) {
                            if (o.has(e.getKey())) continue;
                            o.set(e.getKey(), e.getValue().deepCopy());
                            lines.putIfAbsent(path.isEmpty() ? e.getKey() : path + "." + e.getKey(), mergeLine);
                        }
                    }
                    return o;
                }
                case START_ARRAY -> {
                    ArrayNode a = NODES.arrayNode();
                    int i = 0;
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        a.add(read(path + "[" + i++ + "]"));
                    }
                    return a;
                }
                case VALUE_STRING -> {
                    return NODES.textNode(p.getText());
                }
                case VALUE_NUMBER_INT -> {
                    return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                            ? NODES.numberNode(p.getBigIntegerValue()) : NODES.numberNode(p.getLongValue());
                }
                case VALUE_NUMBER_FLOAT -> {
                    return NODES.numberNode(p.getDoubleValue());
                }
                case VALUE_TRUE, VALUE_FALSE -> {
                    return NODES.booleanNode(p.getBooleanValue());
                }
                case VALUE_NULL -> {
                    return NODES.nullNode();
                }
                default -> throw new BadInputException("unexpected YAML token " + t);
            }
        }

        /** {@code *name}: a copy of the anchored value; an alias before (or inside) its anchor is refused. */
        private JsonNode alias(int line) throws IOException {
            String name = p.getText();
            JsonNode anchored = anchors.get(name);
            if (anchored == null) {
                throw problem(fileName, line, "alias *" + name + " has no anchor &" + name + " before it");
            }
            aliasNodes += size(anchored);
            if (aliasNodes > MAX_ALIAS_NODES) {
                throw problem(fileName, line, "aliases expand to more than " + MAX_ALIAS_NODES + " values");
            }
            return anchored.deepCopy();
        }

        /** The mappings a merge key's value names: one mapping (an alias or inline) or a list of them. */
        private List<ObjectNode> mergeSources(String path, int line) throws IOException {
            String at = path.isEmpty() ? MERGE_KEY : path + "." + MERGE_KEY;
            JsonNode v = read(at);
            lines.remove(at);
            List<ObjectNode> out = new ArrayList<>();
            if (v instanceof ObjectNode o) {
                out.add(o);
                return out;
            }
            if (v.isArray()) {
                boolean all = true;
                for (JsonNode e : v) {
                    if (e instanceof ObjectNode o) out.add(o);
                    else all = false;
                }
                if (all) return out;
            }
            throw problem(fileName, line, (path.isEmpty() ? "" : path + ": ")
                    + "the merge key << takes a mapping (<<: *name) or a list of mappings, not " + kind(v));
        }

        private static String kind(JsonNode v) {
            return v.isArray() ? "a list with other values" : v.isTextual() ? "a string" : v.isNull() ? "null"
                    : v.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
        }

        private static long size(JsonNode n) {
            long s = 1;
            for (JsonNode c : n) s += size(c);
            return s;
        }
    }

    public JsonNode root() {
        return root;
    }

    public String fileName() {
        return fileName;
    }

    /** The line of a path, or of its nearest ancestor that has one; 0 when unknown. */
    public int line(String path) {
        String p = path;
        while (true) {
            Integer l = lines.get(p);
            if (l != null) return l;
            if (p.isEmpty()) return 0;
            int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
            p = cut < 0 ? "" : p.substring(0, cut);
        }
    }

    /** {@code file:line: path: problem}, the shape of every scenario-file error. */
    public BadInputException error(String path, String problem) {
        int line = line(path);
        return new BadInputException(fileName + (line > 0 ? ":" + line : "") + ": "
                + (path.isEmpty() ? "" : path + ": ") + problem);
    }
}
