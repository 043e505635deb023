package io.unibench.web;

import io.javalin.http.Handler;

import java.util.List;

/**
 * One endpoint: registered with the server and described in {@code /api/openapi.json} from this same value, so
 * the document cannot list a route the server lacks or miss one it has.
 *
 * @param path     Javalin's form: {@code /api/runs/{id}}
 * @param query    the query parameters a client may send
 * @param produces the media type of a success (the body of an error is always JSON)
 * @param document false for pages and assets, which the OpenAPI document leaves out
 * @param status   the status of a success
 * @param accepts  the media types of the request body it reads (empty: none)
 */
record Route(String method, String path, String summary, List<Param> query, String produces, boolean document,
             Handler handler, int status, List<String> accepts) {
    record Param(String name, String description, boolean required) {}

    /** What the routes that read a scenario document accept. */
    static final List<String> SCENARIO_DOCUMENT = List.of("application/json", "application/yaml");

    Route {
        query = List.copyOf(query);
        accepts = List.copyOf(accepts);
    }

    static Route api(String method, String path, String summary, String produces, Handler handler, Param... query) {
        return new Route(method, path, summary, List.of(query), produces, true, handler,
                method.equals("delete") ? 204 : 200, List.of());
    }

    static Route page(String method, String path, Handler handler) {
        return new Route(method, path, "", List.of(), "text/html", false, handler, 200, List.of());
    }

    /** The same route answering {@code status} on success and reading a body of the given media types. */
    Route with(int successStatus, List<String> bodyTypes) {
        return new Route(method, path, summary, query, produces, document, handler, successStatus, bodyTypes);
    }

    static Param param(String name, String description) {
        return new Param(name, description, false);
    }

    static Param required(String name, String description) {
        return new Param(name, description, true);
    }
}
