package io.unibench.store;

import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Facts about the machine, the tool and the target stored with every run, so runs weeks apart can be compared. */
public final class RunEnvironment {
    private RunEnvironment() {}

    /** Java, OS/kernel, CPU count and host name of this process. */
    public static Map<String, Object> machine() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("java_version", System.getProperty("java.version"));
        m.put("java_vendor", System.getProperty("java.vendor"));
        m.put("java_vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        m.put("os", System.getProperty("os.name"));
        m.put("os_kernel", System.getProperty("os.version"));
        m.put("os_arch", System.getProperty("os.arch"));
        m.put("cpu_count", Runtime.getRuntime().availableProcessors());
        m.put("host_name", Owner.hostName());
        return m;
    }

    /** {@code scheme://host[:port]} of a URL, without path, query or credentials. */
    public static String baseUrl(String url) {
        try {
            URI u = URI.create(url);
            return u.getScheme() + "://" + u.getHost() + (u.getPort() >= 0 ? ":" + u.getPort() : "");
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The local address this host uses toward the target (the interface the benchmark's traffic leaves by), found
     * by connecting a UDP socket, which sends nothing. Null when the host does not resolve.
     */
    public static String localAddressToward(String url) {
        try {
            URI u = URI.create(url);
            int port = u.getPort() >= 0 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
            try (DatagramSocket s = new DatagramSocket()) {
                s.connect(new InetSocketAddress(InetAddress.getByName(u.getHost()), port));
                InetAddress local = s.getLocalAddress();
                return local == null || local.isAnyLocalAddress() ? null : local.getHostAddress();
            }
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            return null;
        }
    }

    /**
     * The git commit of the checkout the tool runs from (its classes or jar lie inside one when run through
     * {@code ./unibench}), with "-dirty" when it has local changes; null when there is none or git is absent.
     */
    public static String gitCommit(Class<?> anchor) {
        try {
            Path where = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path dir = Files.isDirectory(where) ? where : where.getParent();
            String head = git(dir, "rev-parse", "HEAD");
            if (head == null) return null;
            String status = git(dir, "status", "--porcelain", "--untracked-files=no");
            return status == null || status.isEmpty() ? head : head + "-dirty";
        } catch (Exception e) {
            return null;
        }
    }

    private static String git(Path dir, String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 3];
        cmd[0] = "git";
        cmd[1] = "-C";
        cmd[2] = dir.toString();
        System.arraycopy(args, 0, cmd, 3, args.length);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = in.readNBytes(1 << 16);
        }
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return null;
        }
        return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8).strip() : null;
    }

    /** SHA-256 of a file, hex; null when it cannot be read. */
    public static String sha256(Path file) {
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), MessageDigest.getInstance("SHA-256"))) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
            return HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest());
        } catch (IOException | NoSuchAlgorithmException e) {
            return null;
        }
    }

    /** SHA-256 of a text, hex. */
    public static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
