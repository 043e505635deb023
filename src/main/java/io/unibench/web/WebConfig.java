package io.unibench.web;

import io.unibench.BadInputException;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * How {@code unibench serve} listens.
 *
 * @param host  address to bind; anything but loopback needs a token
 * @param port  0 for a free port (tests)
 * @param token the bearer token every API call and page needs, or null (loopback only)
 */
public record WebConfig(String host, int port, String token) {
    public WebConfig {
        if (port < 0 || port > 65535) throw new BadInputException("--port " + port + ": 0 … 65535");
        if (token != null && token.isBlank()) token = null;
        if (token == null && !loopback(host)) {
            throw new BadInputException("--host " + host + ": binding an address other than loopback needs a token "
                    + "(set UNIBENCH_TOKEN, or the variable --token-env names)");
        }
    }

    /** True when every address the name resolves to is a loopback address. */
    static boolean loopback(String host) {
        try {
            InetAddress[] all = InetAddress.getAllByName(host);
            for (InetAddress a : all) if (!a.isLoopbackAddress()) return false;
            return all.length > 0;
        } catch (UnknownHostException e) {
            throw new BadInputException("--host " + host + ": unknown host");
        }
    }
}
