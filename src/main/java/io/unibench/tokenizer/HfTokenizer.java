package io.unibench.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.BadInputException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Iterator;
import java.util.Map;

/**
 * A Hugging Face {@code tokenizer.json} (a model's own tokenizer) through DJL's bindings of the Rust
 * {@code tokenizers} library. The native library ships inside the DJL jar (linux-x86_64 among others) and is unpacked
 * to {@code ~/.djl.ai} on first use; nothing is downloaded.
 *
 * <p>Truncation and padding are always off: DJL otherwise obeys the file's {@code truncation} block silently (GPT-2's
 * published file truncates to 50 tokens), which would cap every count. Special tokens are never added: counts and
 * synthesized prompts are of the text alone, as a server's chat template adds its own.
 *
 * <p>The vocabulary size and special ids are read from the JSON itself ({@code model.vocab} and {@code added_tokens}),
 * because the bindings do not expose them. The Rust tokenizer is thread-safe; so is this class.
 */
public final class HfTokenizer implements Tokenizer {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String name;
    private final HuggingFaceTokenizer tokenizer;
    private final int vocabSize;
    private final BitSet specialIds;
    private final String chatTemplate;

    private HfTokenizer(String name, HuggingFaceTokenizer tokenizer, int vocabSize, BitSet specialIds,
                        String chatTemplate) {
        this.name = name;
        this.tokenizer = tokenizer;
        this.vocabSize = vocabSize;
        this.specialIds = specialIds;
        this.chatTemplate = chatTemplate;
    }

    /**
     * The tokenizer of {@code path}: a {@code tokenizer.json} file, or a folder holding one (a model folder; its
     * {@code tokenizer_config.json} chat template, if any, is kept for {@link #chatTemplate()}).
     */
    public static HfTokenizer load(Path path) {
        Path file = Files.isDirectory(path) ? path.resolve("tokenizer.json") : path;
        if (!Files.isRegularFile(file)) {
            throw new BadInputException("--tokenizer-path '" + path + "': "
                    + (Files.isDirectory(path) ? "the folder has no tokenizer.json" : "no such file or folder"));
        }
        JsonNode root;
        try (InputStream in = Files.newInputStream(file)) {
            root = JSON.readTree(in);
        } catch (IOException e) {
            throw new BadInputException("--tokenizer-path '" + file + "': not a tokenizer.json (" + e.getMessage() + ")");
        }
        if (root == null || !root.path("model").isObject()) {
            throw new BadInputException("--tokenizer-path '" + file + "': not a tokenizer.json (no 'model' object)");
        }
        BitSet special = new BitSet();
        int maxId = -1;
        for (JsonNode added : root.path("added_tokens")) {
            int id = added.path("id").asInt(-1);
            if (id >= 0 && added.path("special").asBoolean(false)) special.set(id);
        }
        JsonNode vocab = root.path("model").path("vocab");
        if (vocab.isObject()) { // BPE, WordPiece, WordLevel: token -> id
            for (Iterator<Map.Entry<String, JsonNode>> it = vocab.fields(); it.hasNext(); ) {
                int id = it.next().getValue().asInt(-1);
                if (!special.get(id)) maxId = Math.max(maxId, id);
            }
        } else if (vocab.isArray()) { // Unigram: [[piece, score], ...], id = position
            for (int id = 0; id < vocab.size(); id++) if (!special.get(id)) maxId = id;
        }
        if (maxId < 0) throw new BadInputException("--tokenizer-path '" + file + "': the vocabulary is empty");
        HuggingFaceTokenizer hf;
        try {
            hf = HuggingFaceTokenizer.builder()
                    .optTokenizerPath(file)
                    .optAddSpecialTokens(false)
                    .optTruncation(false)
                    .optPadding(false)
                    .build();
        } catch (IOException | RuntimeException e) {
            throw new BadInputException("--tokenizer-path '" + file + "': cannot load (" + e.getMessage() + ")");
        }
        return new HfTokenizer(path.toString(), hf, maxId + 1, special, readChatTemplate(file.getParent()));
    }

    private static String readChatTemplate(Path folder) {
        if (folder == null) return null;
        Path config = folder.resolve("tokenizer_config.json");
        if (!Files.isRegularFile(config)) return null;
        try (InputStream in = Files.newInputStream(config)) {
            JsonNode t = JSON.readTree(in).path("chat_template");
            return t.isTextual() ? t.asText() : null;
        } catch (IOException e) {
            return null; // a broken config only loses the template, which is informational
        }
    }

    @Override public String name() { return name; }

    @Override public int[] encode(String text) {
        long[] ids = tokenizer.encode(text, false, false).getIds();
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) out[i] = (int) ids[i];
        return out;
    }

    @Override public String decode(int[] ids) {
        long[] longs = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            int id = ids[i];
            if (id < 0 || id >= vocabSize) throw new IllegalArgumentException("token id out of range: " + id);
            if (specialIds.get(id)) throw new IllegalArgumentException("token id is a special token: " + id);
            longs[i] = id;
        }
        return tokenizer.decode(longs, false);
    }

    @Override public int vocabSize() { return vocabSize; }

    /** The folder's Jinja chat template ({@code tokenizer_config.json}), or {@code null}; shown, not rendered. */
    public String chatTemplate() {
        return chatTemplate;
    }

    @Override public String toString() { return "HfTokenizer[" + name + "]"; }

    static boolean sameIds(int[] a, int[] b) { return Arrays.equals(a, b); }
}
