package io.unibench.report;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** JSON output shared by the report writers: strict (no NaN/Infinity) and laid out like Python's indent=4. */
public final class Json {
    private Json() {}

    static final ObjectMapper MAPPER = new ObjectMapper();

    /** 4-space indentation and {@code "key": value}, like {@code json.dump(indent=4)}, which evalscope uses. */
    static final ObjectWriter PRETTY = MAPPER.writer(prettyPrinter());

    private static DefaultPrettyPrinter prettyPrinter() {
        DefaultIndenter indenter = new DefaultIndenter("    ", "\n");
        Separators separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator("");
        return new DefaultPrettyPrinter(separators).withObjectIndenter(indenter).withArrayIndenter(indenter);
    }

    /**
     * A copy of a tree of maps/lists with every non-finite double replaced by null: the last guard that keeps
     * NaN (which evalscope writes bare, making the file invalid JSON) out of our files.
     */
    public static Object strict(Object value) {
        if (value instanceof Double d) return Double.isFinite(d) ? d : null;
        if (value instanceof Float f) return Float.isFinite(f) ? f : null;
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(k, strict(v)));
            return out;
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object v : list) out.add(strict(v));
            return out;
        }
        return value;
    }
}
