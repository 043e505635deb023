package io.unibench.web;

import java.util.ArrayList;
import java.util.List;

/**
 * One table of a page, cells already formatted as the terminal report formats them.
 *
 * @param numeric per column: right-aligned figures
 */
public record Table(String title, List<String> header, List<Boolean> numeric, List<List<String>> rows) {
    /** The header of a column of points' verdicts, each cell drawn as a badge ({@code table.jte}). */
    public static final String VERDICT = "Verdict";

    public Table {
        header = List.copyOf(header);
        numeric = List.copyOf(numeric);
        rows = List.copyOf(rows);
    }

    /** True when column {@code i} holds verdicts. */
    public boolean verdictColumn(int i) {
        return VERDICT.equals(header.get(i));
    }

    /** Builds a table row by row; the first {@code leftColumns} columns are text, the rest figures. */
    static final class Builder {
        private final String title;
        private final List<String> header;
        private final int leftColumns;
        private final List<List<String>> rows = new ArrayList<>();

        Builder(String title, int leftColumns, String... header) {
            this.title = title;
            this.header = List.of(header);
            this.leftColumns = leftColumns;
        }

        Builder row(String... cells) {
            rows.add(List.of(cells));
            return this;
        }

        boolean isEmpty() {
            return rows.isEmpty();
        }

        Table build() {
            List<Boolean> numeric = new ArrayList<>();
            for (int i = 0; i < header.size(); i++) numeric.add(i >= leftColumns);
            return new Table(title, header, numeric, rows);
        }
    }
}
