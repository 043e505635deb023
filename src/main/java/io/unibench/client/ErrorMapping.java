package io.unibench.client;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
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
        if (t instanceof SSLException || t instanceof DecoderException) {
            return ErrorClass.PROTOCOL_ERROR;
        }
        if (t instanceof IOException) {
            return ErrorClass.CONNECTION_RESET; // reset by peer, broken pipe, closed channel
        }
        return ErrorClass.PROTOCOL_ERROR;
    }

    /** A one-line message naming the exception, secrets stripped. */
    static String message(Throwable error) {
        Throwable t = unwrap(error);
        String text = t.getMessage();
        String name = t.getClass().getSimpleName();
        return ChunkInterpreter.oneLine(text == null || text.isBlank() ? name : name + ": " + text);
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
