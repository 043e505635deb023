package io.unibench.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What the client needs from a response's status line and headers (see {@link ResponseDecoder}).
 *
 * @param contentType   the {@code Content-Type} value, {@code ""} when absent
 * @param keepAlive     the connection may carry the next request (version, {@code Connection}, and a body whose
 *                      end is not the close)
 * @param chunked       the last transfer coding is {@code chunked}
 * @param contentLength the body's length, or -1 when it is chunked or delimited by the close
 * @param retryAfter    the {@code Retry-After} value as sent (seconds or an HTTP date), {@code null} when absent
 */
record ResponseHead(int status, String contentType, boolean keepAlive, boolean chunked, long contentLength,
                    String retryAfter) {

    /**
     * Reads a head straight from its bytes: header names are matched without a String each (only the
     * Content-Type value becomes one, reused while it repeats), since this runs once per response.
     */
    static final class Parser {
        private static final byte[] CONTENT_TYPE = ascii("content-type");
        private static final byte[] CONTENT_LENGTH = ascii("content-length");
        private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
        private static final byte[] CONNECTION = ascii("connection");
        private static final byte[] RETRY_AFTER = ascii("retry-after");
        private static final byte[] CHUNKED = ascii("chunked");
        private static final byte[] CLOSE = ascii("close");
        private static final byte[] KEEP_ALIVE = ascii("keep-alive");

        private byte[] lastContentType = new byte[0];
        private String lastContentTypeText = "";

        /** Parses {@code b[0, length)}: a status line, header lines, the blank line. */
        ResponseHead parse(byte[] b, int length) {
            int eol = lineEnd(b, 0, length);
            int statusEnd = trimCr(b, 0, eol);
            if (statusEnd < 12 || !startsWith(b, "HTTP/1.") || !digit(b[7]) || b[8] != ' ' || !digit(b[9])
                    || !digit(b[10]) || !digit(b[11]) || (statusEnd > 12 && b[12] != ' ')) {
                throw new ResponseDecoder.MalformedResponseException(
                        "invalid status line \"" + printable(b, statusEnd) + "\"");
            }
            boolean http10 = b[7] == '0';
            int status = (b[9] - '0') * 100 + (b[10] - '0') * 10 + (b[11] - '0');
            String contentType = "";
            boolean hasTransferEncoding = false;
            boolean chunked = false;
            long contentLength = -1;
            int connection = 0; // -1 close, 1 keep-alive
            String retryAfter = null; // only refusals carry it: a String only then
            for (int start = eol + 1; start < length; start = eol + 1) {
                eol = lineEnd(b, start, length);
                int end = trimCr(b, start, eol);
                if (end == start || b[start] == ' ' || b[start] == '\t') {
                    continue; // the blank line, or obsolete line folding (no folded value is needed)
                }
                int colon = indexOf(b, start, end, (byte) ':');
                if (colon <= start) {
                    throw new ResponseDecoder.MalformedResponseException("invalid header line \""
                            + printable(Arrays.copyOfRange(b, start, end), end - start) + "\"");
                }
                int vs = colon + 1;
                int ve = end;
                while (vs < ve && (b[vs] == ' ' || b[vs] == '\t')) vs++;
                while (ve > vs && (b[ve - 1] == ' ' || b[ve - 1] == '\t')) ve--;
                if (nameIs(b, start, colon, CONTENT_TYPE)) {
                    contentType = contentType(b, vs, ve);
                } else if (nameIs(b, start, colon, CONTENT_LENGTH)) {
                    contentLength = contentLength(b, vs, ve, contentLength);
                } else if (nameIs(b, start, colon, TRANSFER_ENCODING)) {
                    hasTransferEncoding = true;
                    // the last coding of the last field decides
                    int lastComma = lastIndexOf(b, vs, ve, (byte) ',');
                    chunked = tokenIs(b, lastComma < 0 ? vs : lastComma + 1, ve, CHUNKED);
                } else if (nameIs(b, start, colon, RETRY_AFTER)) {
                    retryAfter = new String(b, vs, ve - vs, StandardCharsets.ISO_8859_1);
                } else if (nameIs(b, start, colon, CONNECTION)) {
                    for (int t = vs; t <= ve; ) {
                        int comma = indexOf(b, t, ve, (byte) ',');
                        int te = comma < 0 ? ve : comma;
                        if (tokenIs(b, t, te, CLOSE)) connection = -1;
                        else if (tokenIs(b, t, te, KEEP_ALIVE) && connection == 0) connection = 1;
                        t = te + 1;
                    }
                }
            }
            if (hasTransferEncoding) {
                contentLength = -1; // Transfer-Encoding overrides Content-Length (RFC 9112 §6.3)
            }
            boolean keepAlive = connection != 0 ? connection > 0 : !http10;
            boolean bodyless = status < 200 || status == 204 || status == 304;
            if (!bodyless && !chunked && contentLength < 0) {
                keepAlive = false; // the body ends with the connection
            }
            return new ResponseHead(status, contentType, keepAlive, chunked, contentLength, retryAfter);
        }

        private String contentType(byte[] b, int from, int to) {
            if (!Arrays.equals(b, from, to, lastContentType, 0, lastContentType.length)) {
                lastContentType = Arrays.copyOfRange(b, from, to);
                lastContentTypeText = new String(lastContentType, StandardCharsets.ISO_8859_1);
            }
            return lastContentTypeText;
        }

        /** One Content-Length field (maybe a list of equal values), consistent with those seen before. */
        private static long contentLength(byte[] b, int from, int to, long before) {
            long result = before;
            for (int t = from; t <= to; ) {
                int comma = indexOf(b, t, to, (byte) ',');
                int te = comma < 0 ? to : comma;
                int ds = t;
                int de = te;
                while (ds < de && b[ds] == ' ') ds++;
                while (de > ds && b[de - 1] == ' ') de--;
                if (de == ds || de - ds > 18) throw invalidLength(b, from, to);
                long n = 0;
                for (int i = ds; i < de; i++) {
                    if (!digit(b[i])) throw invalidLength(b, from, to);
                    n = n * 10 + (b[i] - '0');
                }
                if (result >= 0 && n != result) {
                    throw new ResponseDecoder.MalformedResponseException(
                            "conflicting Content-Length values " + result + " and " + n);
                }
                result = n;
                t = te + 1;
            }
            return result;
        }

        private static ResponseDecoder.MalformedResponseException invalidLength(byte[] b, int from, int to) {
            return new ResponseDecoder.MalformedResponseException("invalid Content-Length \""
                    + printable(Arrays.copyOfRange(b, from, to), to - from) + "\"");
        }

        /** Case-insensitive name match; {@code lower} is lower-case ASCII. */
        private static boolean nameIs(byte[] b, int from, int to, byte[] lower) {
            if (to - from != lower.length) return false;
            for (int i = 0; i < lower.length; i++) {
                int c = b[from + i];
                if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
                if (c != lower[i]) return false;
            }
            return true;
        }

        /** {@code b[from, to)}, without surrounding spaces, equals {@code lower} ignoring case. */
        private static boolean tokenIs(byte[] b, int from, int to, byte[] lower) {
            while (from < to && (b[from] == ' ' || b[from] == '\t')) from++;
            while (to > from && (b[to - 1] == ' ' || b[to - 1] == '\t')) to--;
            return nameIs(b, from, to, lower);
        }

        private static int lineEnd(byte[] b, int from, int length) {
            int lf = indexOf(b, from, length, (byte) '\n');
            return lf < 0 ? length : lf;
        }

        private static int trimCr(byte[] b, int from, int eol) {
            return eol > from && b[eol - 1] == '\r' ? eol - 1 : eol;
        }

        private static int indexOf(byte[] b, int from, int to, byte value) {
            for (int i = from; i < to; i++) {
                if (b[i] == value) return i;
            }
            return -1;
        }

        private static int lastIndexOf(byte[] b, int from, int to, byte value) {
            for (int i = to - 1; i >= from; i--) {
                if (b[i] == value) return i;
            }
            return -1;
        }

        private static boolean startsWith(byte[] b, String prefix) {
            for (int i = 0; i < prefix.length(); i++) {
                if (b[i] != prefix.charAt(i)) return false;
            }
            return true;
        }

        private static boolean digit(byte c) {
            return c >= '0' && c <= '9';
        }

        private static byte[] ascii(String s) {
            return s.getBytes(StandardCharsets.US_ASCII);
        }
    }

    /** At most 64 characters of {@code bytes}, anything outside printable ASCII shown as '?'. */
    static String printable(byte[] bytes, int length) {
        String s = new String(bytes, 0, Math.min(length, 64), StandardCharsets.ISO_8859_1);
        return s.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
