package io.unibench.client;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslClosedEngineException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;

/** Maps what Netty throws to the error class reported for the request. */
final class ErrorMapping {

    private ErrorMapping() {}

    static ErrorClass classify(Throwable error) {
        Throwable t = unwrap(error);
        // ConnectTimeoutException is a ConnectException: test it first
        if (t instanceof ConnectTimeoutException || t instanceof SslHandshakeTimeoutException) {
            return ErrorClass.TIMEOUT_CONNECT;
        }
        if (t instanceof ConnectException || t instanceof NoRouteToHostException
                || t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
            return ErrorClass.CONNECTION_REFUSED;
        }
        if (t instanceof SslClosedEngineException) {
            // a write on a connection whose TLS session the server ended (its close_notify came first): a stale
            // connection, as a reset is, not a TLS failure (a failed handshake is reported as itself: Exchange)
            return ErrorClass.CONNECTION_RESET;
        }
        if (t instanceof SSLException) {
            return ErrorClass.TLS_ERROR;
        }
        if (t instanceof DecoderException) {
            return ErrorClass.PROTOCOL_ERROR;
        }
        if (t instanceof IOException) {
            return ErrorClass.CONNECTION_RESET; // reset by peer, broken pipe, closed channel
        }
        return ErrorClass.PROTOCOL_ERROR;
    }

    /**
     * A one-line message, secrets stripped: the exception's own text ("Connection refused: /127.0.0.1:8000"),
     * or its class name when it has none. Users read it next to the error class, which already says what kind
     * of failure it was, so Java class names would only be noise.
     */
    static String message(Throwable error) {
        Throwable t = unwrap(error);
        if (t instanceof SslClosedEngineException) {
            return "the server had ended the connection's TLS session (close_notify)";
        }
        if (t instanceof NotSslRecordException) {
            return "the reply is not TLS (a plain http server on an https:// URL?)"; // Netty's text is a hex dump
        }
        if (t instanceof SSLException) {
            t = innermost(t); // the certificate check's own words; BoringSSL's wrapper only says "General ... problem"
        }
        String text = t.getMessage();
        return ChunkInterpreter.oneLine(text == null || text.isBlank() ? t.getClass().getSimpleName() : text);
    }

    /** The deepest cause that says something. */
    private static Throwable innermost(Throwable t) {
        Throwable cause = t.getCause();
        while (cause != null && cause != t && cause.getMessage() != null && !cause.getMessage().isBlank()) {
            t = cause;
            cause = t.getCause();
        }
        return t;
    }

    /** Netty wraps TLS failures in a DecoderException; the cause says what happened. */
    private static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while (t instanceof DecoderException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
