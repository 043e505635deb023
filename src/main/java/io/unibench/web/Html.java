package io.unibench.web;

import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;

/** What the page classes ({@link Pages}, {@link SchedulePages}) share: the templates and how values are shown. */
final class Html {
    private static final TemplateEngine TEMPLATES =
            TemplateEngine.createPrecompiled(null, ContentType.Html, Html.class.getClassLoader(), "io.unibench.web.jte");

    private Html() {}

    /** The precompiled template (src/main/jte) over its model. */
    static String render(String template, Object model) {
        StringOutput out = new StringOutput(8192);
        TEMPLATES.render(template, model, out);
        return out.toString();
    }

    /** JSON for a {@code <script type="application/json">} block: nothing in it can close the element. */
    static String scriptJson(Object value) {
        try {
            return WebServer.JSON.writeValueAsString(value).replace("</", "<\\/");
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code 2026-12-01 02:00:00 UTC}. */
    static String time(long epochMillis) {
        return io.unibench.schedule.Times.utc(epochMillis);
    }

    static String nz(String s) {
        return s == null ? "" : s;
    }
}
