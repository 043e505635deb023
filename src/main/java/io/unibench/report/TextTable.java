package io.unibench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table drawn with Unicode box characters, like evalscope's terminal tables:
 * <pre>
 * ┌───────┬──────┐
 * │ Conc. │  RPS │
 * ├───────┼──────┤
 * │     8 │ 12.5 │
 * └───────┴──────┘
 * </pre>
 * Column widths follow the widest cell, counting East Asian wide characters as two columns. No ANSI codes.
 */
public final class TextTable {

    public enum Align { LEFT, RIGHT }

    private final List<String> headers;
    private final Align[] aligns;
    /** Rows of cells; {@code null} marks a separator line. */
    private final List<String[]> rows = new ArrayList<>();

    /**
     * @param headers column titles, or null for a table without a header row
     * @param aligns  one per column
     */
    public TextTable(List<String> headers, Align... aligns) {
        if (headers != null && headers.size() != aligns.length) {
            throw new IllegalArgumentException("headers and alignments differ in count");
        }
        this.headers = headers == null ? null : List.copyOf(headers);
        this.aligns = aligns.clone();
    }

    /** Adds a row; missing trailing cells are blank, {@code null} cells are blank. */
    public TextTable row(String... cells) {
        if (cells.length > aligns.length) throw new IllegalArgumentException("too many cells");
        String[] r = new String[aligns.length];
        for (int i = 0; i < r.length; i++) r[i] = i < cells.length && cells[i] != null ? clean(cells[i]) : "";
        rows.add(r);
        return this;
    }

    /** Adds a horizontal rule between the rows before and after it (e.g. between runs). */
    public TextTable separator() {
        if (!rows.isEmpty() && rows.getLast() != null) rows.add(null);
        return this;
    }

    public String render() {
        int[] widths = new int[aligns.length];
        if (headers != null) for (int i = 0; i < widths.length; i++) widths[i] = width(headers.get(i));
        for (String[] r : rows) {
            if (r == null) continue;
            for (int i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i], width(r[i]));
        }
        StringBuilder sb = new StringBuilder();
        rule(sb, widths, '┌', '┬', '┐');
        if (headers != null) {
            line(sb, widths, headers.toArray(String[]::new));
            rule(sb, widths, '├', '┼', '┤');
        }
        List<String[]> body = new ArrayList<>(rows);
        while (!body.isEmpty() && body.getLast() == null) body.removeLast();
        for (String[] r : body) {
            if (r == null) rule(sb, widths, '├', '┼', '┤');
            else line(sb, widths, r);
        }
        rule(sb, widths, '└', '┴', '┘');
        return sb.toString();
    }

    private void line(StringBuilder sb, int[] widths, String[] cells) {
        sb.append('│');
        for (int i = 0; i < widths.length; i++) {
            String c = cells[i];
            String pad = " ".repeat(widths[i] - width(c));
            sb.append(' ');
            if (aligns[i] == Align.RIGHT) sb.append(pad).append(c);
            else sb.append(c).append(pad);
            sb.append(" │");
        }
        sb.append('\n');
    }

    private static void rule(StringBuilder sb, int[] widths, char left, char mid, char right) {
        sb.append(left);
        for (int i = 0; i < widths.length; i++) {
            if (i > 0) sb.append(mid);
            sb.append("─".repeat(widths[i] + 2));
        }
        sb.append(right).append('\n');
    }

    private static String clean(String s) {
        return s.replace('\r', ' ').replace('\n', ' ').replace('\t', ' ');
    }

    /** Terminal columns a string occupies: wide (CJK, full-width) characters take two. */
    static int width(String s) {
        return s.codePoints().map(TextTable::codePointWidth).sum();
    }

    private static int codePointWidth(int cp) {
        if (Character.getType(cp) == Character.NON_SPACING_MARK) return 0;
        boolean wide = (cp >= 0x1100 && cp <= 0x115F)
                || (cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F)
                || (cp >= 0xAC00 && cp <= 0xD7A3)
                || (cp >= 0xF900 && cp <= 0xFAFF)
                || (cp >= 0xFE30 && cp <= 0xFE4F)
                || (cp >= 0xFF00 && cp <= 0xFF60)
                || (cp >= 0xFFE0 && cp <= 0xFFE6)
                || (cp >= 0x1F300 && cp <= 0x1F64F)
                || (cp >= 0x20000 && cp <= 0x3FFFD);
        return wide ? 2 : 1;
    }

    @Override
    public String toString() {
        return render();
    }
}
