package io.unibench.output;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;

/** JSON output shared by the output and report writers: strict (no NaN/Infinity, see {@link io.unibench.metrics.StrictJson}) and laid out like Python's indent=4. */
public final class Json {
    private Json() {}

    public static final ObjectMapper MAPPER = new ObjectMapper();

    /** 4-space indentation and {@code "key": value}, like {@code json.dump(indent=4)}, which evalscope uses. */
    public static final ObjectWriter PRETTY = MAPPER.writer(prettyPrinter());

    private static DefaultPrettyPrinter prettyPrinter() {
        DefaultIndenter indenter = new DefaultIndenter("    ", "\n");
        Separators separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator("");
        return new DefaultPrettyPrinter(separators).withObjectIndenter(indenter).withArrayIndenter(indenter);
    }
}
