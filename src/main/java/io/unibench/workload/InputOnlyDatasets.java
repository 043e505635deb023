package io.unibench.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * evalscope's datasets for embedding and rerank endpoints (reference §3): {@code embedding} (alias {@code embed})
 * and {@code embedding_batch} read texts from a file; {@code random_embedding} and {@code random_embedding_batch}
 * synthesize them as {@code random} does (exact token lengths in {@code [--min-prompt-length,
 * --max-prompt-length]}); {@code rerank} reads query/documents records; {@code random_rerank} synthesizes a query of
 * that length and {@code num_documents} documents of {@code document_length_ratio} times its length. A batch dataset's
 * prompt is a body {@code {"input": [texts]}} of {@code batch_size} texts; a rerank prompt is a body
 * {@code {"query", "documents"}}; the others are plain texts (sent as {@code input}).
 *
 * <p>Files: {@code .json} — one JSON array (of strings or objects); {@code .jsonl} — one string or object per line;
 * anything else — one text per line (rerank: one JSON object per line). An embedding object's text is its
 * {@code text}, {@code input}, {@code sentence} or {@code content}; a rerank object has {@code query} and
 * {@code documents} (aliases {@code passages}, {@code texts}) of strings or objects with {@code text}.
 */
public final class InputOnlyDatasets {
    public static final String EMBEDDING = "embedding";
    public static final String EMBED = "embed";
    public static final String EMBEDDING_BATCH = "embedding_batch";
    public static final String RANDOM_EMBEDDING = "random_embedding";
    public static final String RANDOM_EMBEDDING_BATCH = "random_embedding_batch";
    public static final String RERANK = "rerank";
    public static final String RANDOM_RERANK = "random_rerank";
    public static final List<String> NAMES = List.of(EMBEDDING, EMBED, EMBEDDING_BATCH, RANDOM_EMBEDDING,
            RANDOM_EMBEDDING_BATCH, RERANK, RANDOM_RERANK);

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * The knobs evalscope reads from {@code --extra-args} (and this tool also from {@code --dataset-args}).
     *
     * @param batchSize           texts per request of the batch datasets (evalscope's default 8)
     * @param numDocuments        documents per {@code random_rerank} request (default 10)
     * @param documentLengthRatio a {@code random_rerank} document's length over its query's (default 5)
     */
    public record Args(int batchSize, int numDocuments, double documentLengthRatio) {
        public static final Args DEFAULTS = new Args(8, 10, 5.0);

        public Args {
            if (batchSize < 1) throw new BadInputException("batch_size " + batchSize + ": must be >= 1");
            if (numDocuments < 1) throw new BadInputException("num_documents " + numDocuments + ": must be >= 1");
            if (!(documentLengthRatio > 0) || Double.isInfinite(documentLengthRatio)) {
                throw new BadInputException("document_length_ratio " + documentLengthRatio + ": must be > 0");
            }
        }

        /** The knobs given in {@code args} (a JSON object, or null), the others as in {@code base}. */
        public Args with(JsonNode args, String flag) {
            if (args == null) return this;
            return new Args(intArg(args, "batch_size", batchSize, flag), intArg(args, "num_documents", numDocuments, flag),
                    doubleArg(args, "document_length_ratio", documentLengthRatio, flag));
        }

        private static int intArg(JsonNode args, String key, int otherwise, String flag) {
            JsonNode v = args.get(key);
            if (v == null) return otherwise;
            if (!v.isIntegralNumber() || !v.canConvertToInt()) throw new BadInputException(flag + ": " + key + " must be an integer");
            return v.intValue();
        }

        private static double doubleArg(JsonNode args, String key, double otherwise, String flag) {
            JsonNode v = args.get(key);
            if (v == null) return otherwise;
            if (!v.isNumber()) throw new BadInputException(flag + ": " + key + " must be a number");
            return v.doubleValue();
        }
    }

    private InputOnlyDatasets() {}

    public static boolean isRerank(String name) {
        return RERANK.equals(name) || RANDOM_RERANK.equals(name);
    }

    public static boolean isEmbedding(String name) {
        return NAMES.contains(name) && !isRerank(name);
    }

    /** The dataset called {@code name} (one of {@link #NAMES}) with these knobs. */
    public static Dataset of(String name, Args args) {
        return switch (name) {
            case EMBEDDING, EMBED -> dataset(name, (o, n) -> fileTexts(name, o, n, 1));
            case EMBEDDING_BATCH -> dataset(name, (o, n) -> fileTexts(name, o, n, args.batchSize()));
            case RANDOM_EMBEDDING -> dataset(name, (o, n) -> randomTexts(o, n, 1));
            case RANDOM_EMBEDDING_BATCH -> dataset(name, (o, n) -> randomTexts(o, n, args.batchSize()));
            case RERANK -> dataset(name, (o, n) -> fileRerank(o, n));
            case RANDOM_RERANK -> dataset(name, (o, n) -> randomRerank(o, n, args));
            default -> throw new IllegalArgumentException("not an embedding or rerank dataset: " + name);
        };
    }

    private interface Loader {
        List<Prompt> load(DatasetOptions options, int count);
    }

    private static Dataset dataset(String name, Loader loader) {
        return new Dataset() {
            @Override public String name() { return name; }

            @Override public List<Prompt> load(DatasetOptions options, int count) {
                if (count < 1) throw new IllegalArgumentException("count must be >= 1, got " + count);
                return loader.load(options, count);
            }
        };
    }

    // ---- embeddings ----

    private static List<Prompt> fileTexts(String name, DatasetOptions options, int count, int batch) {
        String path = CustomDataset.requirePath(name, options, "texts to embed (.txt lines, .json array, .jsonl)");
        List<String> texts = new ArrayList<>();
        for (Item item : items(path)) {
            String text = embeddingText(item); // every record is checked, also those past what the run needs
            if (texts.size() < (long) count * batch) texts.add(text);
        }
        return batches(texts, batch);
    }

    private static String embeddingText(Item item) {
        if (item.node() == null) return item.line();
        JsonNode n = item.node();
        if (n.isTextual()) return n.asText();
        for (String key : List.of("text", "input", "sentence", "content")) {
            JsonNode v = n.get(key);
            if (v != null && v.isTextual()) return v.asText();
        }
        throw BadInputException.at(item.path(), item.number(), null,
                "expected a string or an object with text, input, sentence or content");
    }

    private static List<Prompt> batches(List<String> texts, int batch) {
        if (batch == 1) return texts.stream().map(t -> Prompt.ofText(t, -1, -1)).toList();
        List<Prompt> out = new ArrayList<>();
        for (int i = 0; i < texts.size(); i += batch) {
            out.add(Prompt.ofBody(inputBody(texts.subList(i, Math.min(texts.size(), i + batch)))));
        }
        return out;
    }

    private static ObjectNode inputBody(List<String> texts) {
        ObjectNode body = NODES.objectNode();
        ArrayNode input = body.putArray("input");
        texts.forEach(input::add);
        return body;
    }

    private static List<Prompt> randomTexts(DatasetOptions options, int count, int batch) {
        DatasetOptions text = new DatasetOptions(options.path(), options.offset(), options.minPromptLength(),
                options.maxPromptLength(), options.prefixLength(), options.tokenizer(), false, options.seed());
        List<Prompt> singles = new RandomDataset().load(text, Math.multiplyExact(count, batch));
        if (batch == 1) return singles;
        return GeneratedList.of(count, i -> {
            List<String> texts = new ArrayList<>(batch);
            for (int k = 0; k < batch; k++) texts.add(singles.get(i * batch + k).text());
            return Prompt.ofBody(inputBody(texts));
        }, RANDOM_EMBEDDING_BATCH + " dataset, " + count + " batches of " + batch);
    }

    // ---- rerank ----

    private static List<Prompt> fileRerank(DatasetOptions options, int count) {
        String path = CustomDataset.requirePath(RERANK, options, "query/documents records (.json array, .jsonl)");
        List<Prompt> out = new ArrayList<>();
        for (Item item : items(path)) {
            JsonNode n = item.node();
            if (n == null || !n.isObject()) {
                throw BadInputException.at(path, item.number(), null, "expected a JSON object with query and documents");
            }
            JsonNode query = n.get("query");
            if (query == null || !query.isTextual()) throw BadInputException.at(path, item.number(), "query", "missing or not a string");
            JsonNode docs = n.has("documents") ? n.get("documents") : n.has("passages") ? n.get("passages") : n.get("texts");
            if (docs == null || !docs.isArray() || docs.isEmpty()) {
                throw BadInputException.at(path, item.number(), "documents", "missing or not a non-empty list");
            }
            ObjectNode body = NODES.objectNode().put("query", query.asText());
            ArrayNode documents = body.putArray("documents");
            for (JsonNode d : docs) {
                JsonNode text = d.isObject() ? d.get("text") : d;
                if (text == null || !text.isTextual()) {
                    throw BadInputException.at(path, item.number(), "documents", "each document must be a string or an object with text");
                }
                documents.add(text.asText());
            }
            if (out.size() < count) out.add(Prompt.ofBody(body)); // the records past count are checked all the same
        }
        return out;
    }

    private static List<Prompt> randomRerank(DatasetOptions options, int count, Args args) {
        if (options.tokenizer() == null) {
            throw new BadInputException("--dataset random_rerank needs a tokenizer: pass --tokenizer-path, e.g. cl100k_base");
        }
        LengthFilter.requireValidBounds(options);
        PromptSynthesizer synthesizer = new PromptSynthesizer(options.tokenizer());
        return GeneratedList.of(count, index -> {
            SplittableRandom rng = new SplittableRandom(RandomDataset.itemSeed(options.seed(), options.offset(), index));
            int length = Math.max(1, (int) rng.nextLong(options.minPromptLength(), options.maxPromptLength() + 1L));
            ObjectNode body = NODES.objectNode().put("query", synthesizer.synthesize(length, rng).text());
            ArrayNode documents = body.putArray("documents");
            int docLength = Math.max(1, (int) Math.round(length * args.documentLengthRatio()));
            for (int d = 0; d < args.numDocuments(); d++) documents.add(synthesizer.synthesize(docLength, rng).text());
            return Prompt.ofBody(body);
        }, RANDOM_RERANK + " dataset, " + count + " requests of " + args.numDocuments() + " documents");
    }

    // ---- files ----

    /** One record of a dataset file: a parsed JSON value, or (plain text files) the line itself. */
    private record Item(String path, long number, JsonNode node, String line) {}

    private static List<Item> items(String path) {
        List<Item> items = new ArrayList<>();
        if (path.endsWith(".json")) {
            JsonNode root;
            try {
                root = JSON.readTree(DatasetFile.readAll(path));
            } catch (JsonProcessingException e) {
                throw BadInputException.at(path, e.getLocation() == null ? 0 : e.getLocation().getLineNr(), null,
                        "invalid JSON: " + e.getOriginalMessage());
            }
            if (root == null || !root.isArray() || root.isEmpty()) throw BadInputException.at(path, 0, null, "expected a non-empty JSON array");
            long i = 0;
            for (JsonNode n : root) items.add(new Item(path, ++i, n, null));
            return items;
        }
        boolean jsonLines = path.endsWith(".jsonl");
        DatasetFile.forEachNonBlankLine(path, (number, line) -> {
            String trimmed = line.strip();
            if (jsonLines || trimmed.startsWith("{")) {
                try {
                    items.add(new Item(path, number, JSON.readTree(trimmed), null));
                } catch (JsonProcessingException e) {
                    throw BadInputException.at(path, number, null, "invalid JSON: " + e.getOriginalMessage());
                }
            } else {
                items.add(new Item(path, number, null, trimmed));
            }
            return true;
        });
        return items;
    }
}
