package io.unibench.importer;

import io.unibench.BadInputException;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;

/**
 * What the platform's import reads (its API and the runs page's form): one file, several files of one folder (an
 * evalscope perf point folder's {@code benchmark_summary.json}, {@code benchmark_percentile.json},
 * {@code benchmark_args.json}, {@code benchmark_data.db}, or AIPerf's records and aggregate), or a zip of a folder.
 * They are laid out in a temporary folder of their own and read as {@code runs import} reads a file or folder; the
 * folder is deleted. A zip is expanded with bounds (entries, expanded bytes) and refuses any entry that would land
 * outside its folder; a refused upload is one line naming it, and nothing is read or stored.
 */
public final class Uploads {
    /** One uploaded file: the name it was sent under (a browser's folder upload may send a relative path). */
    public record Part(String name, byte[] bytes) {}

    /** The folder uploaded files are laid out in (not a zip's: its own name). */
    static final String UPLOAD_FOLDER = "upload";

    /** The most entries a zip may hold. */
    public static final int MAX_ENTRIES = 1_000;
    /** The most bytes a zip may expand to (all entries together, counted as they are written). */
    public static final long MAX_EXPANDED_BYTES = 128L << 20;

    private Uploads() {}

    /**
     * The runs in the uploaded parts: one part is a file (or, by its content, a zip of a folder), several are the files
     * of one folder. Errors and the stored file names say the upload's names, never the temporary folder.
     */
    public static List<Foreign> read(List<Part> parts, ForeignFormat forced, long nowMillis) {
        if (parts.isEmpty()) throw new BadInputException("no file uploaded");
        Path dir = null;
        Path base = null;
        try {
            dir = Files.createTempDirectory("unibench-upload");
            // the names errors and stored files say are relative to base: a zip's start with its own name; files are
            // laid out in a folder "upload" (the point label of an evalscope point's files uploaded without a folder)
            base = dir;
            Path root;
            if (parts.size() == 1 && isZip(parts.getFirst().bytes())) {
                root = dir.resolve(uploadName(parts.getFirst().name()));
                Files.createDirectory(root);
                unzip(parts.getFirst(), root);
            } else if (parts.size() == 1) {
                refuseOtherArchives(parts.getFirst());
                base = Files.createDirectory(dir.resolve(UPLOAD_FOLDER));
                root = base.resolve(uploadName(parts.getFirst().name()));
                Files.write(root, parts.getFirst().bytes());
            } else {
                base = Files.createDirectory(dir.resolve(UPLOAD_FOLDER));
                root = base;
                Set<String> seen = new HashSet<>();
                for (Part p : parts) {
                    if (isZip(p.bytes())) {
                        throw new BadInputException(shown(p.name()) + ": a zip among several files; upload the zip alone");
                    }
                    refuseOtherArchives(p);
                    String rel = relative(p.name(), p.name());
                    if (!seen.add(rel)) {
                        throw new BadInputException(rel + ": two uploaded files have this name (a folder of several "
                                + "points: upload it as a .zip)");
                    }
                    Path file = inside(base, rel, rel);
                    Files.createDirectories(file.getParent());
                    Files.write(file, p.bytes());
                }
            }
            List<Foreign> runs = ResultImport.read(List.of(root), forced, nowMillis);
            String prefix = base + java.io.File.separator;
            List<Foreign> renamed = new ArrayList<>();
            for (Foreign f : runs) {
                Map<String, Object> files = new LinkedHashMap<>();
                f.files().forEach((k, v) -> files.put(k.startsWith(prefix) ? k.substring(prefix.length()) : k, v));
                renamed.add(new Foreign(f.format(), f.version(), files, f.args(), f.lacks(), f.points(),
                        f.startedAtMillis()));
            }
            return renamed;
        } catch (BadInputException e) {
            if (dir == null) throw e;
            throw new BadInputException(e.getMessage().replace(base + java.io.File.separator, "")
                    .replace(base.toString(), "the uploaded files").replace(dir.toString(), "the uploaded files"));
        } catch (java.nio.file.FileSystemException e) {
            if (!fileAndFolder(e) || dir == null) throw new IllegalStateException("cannot keep the uploaded files: " + e, e);
            throw new BadInputException(base.relativize(Path.of(e.getFile())) + ": names both a file and a folder among "
                    + "the uploaded files");
        } catch (IOException e) {
            throw new IllegalStateException("cannot keep the uploaded files while reading them: " + e.getMessage(), e);
        } finally {
            if (dir != null) delete(dir);
        }
    }

    /** True when the bytes begin as a zip archive does (a local file header, or an empty archive's end record). */
    static boolean isZip(byte[] b) {
        return b.length >= 4 && b[0] == 'P' && b[1] == 'K' && ((b[2] == 3 && b[3] == 4) || (b[2] == 5 && b[3] == 6));
    }

    private static void refuseOtherArchives(Part p) {
        byte[] b = p.bytes();
        if (b.length >= 2 && (b[0] & 0xff) == 0x1f && (b[1] & 0xff) == 0x8b) {
            throw new BadInputException(shown(p.name()) + ": a gzip archive (tar.gz), which the platform does not "
                    + "expand; upload the folder as a .zip, or its files");
        }
        if (p.name() != null && p.name().toLowerCase(java.util.Locale.ROOT).endsWith(".zip")) {
            throw new BadInputException(shown(p.name()) + ": not a zip archive (no zip header)");
        }
    }

    /**
     * Expands {@code zip} into {@code root}: at most {@link #MAX_ENTRIES} entries and {@link #MAX_EXPANDED_BYTES}
     * (counted as written, never trusted from the headers); an entry naming a path outside (absolute, {@code ..}) or
     * twice is refused. Archivers' own entries ({@code __MACOSX/}, names beginning with a dot) are not expanded.
     */
    private static void unzip(Part zip, Path root) throws IOException {
        String name = shown(zip.name());
        byte[] buffer = new byte[64 * 1024];
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip.bytes()))) {
            unzipEntries(in, root, name, buffer);
        } catch (ZipException | java.io.EOFException | IllegalArgumentException e) {
            throw new BadInputException(name + ": not a readable zip archive: " + e.getMessage());
        } catch (java.nio.file.FileSystemException e) {
            if (!fileAndFolder(e)) throw e;
            throw new BadInputException(name + ": " + root.relativize(Path.of(e.getFile())) + ": names both a file and a "
                    + "folder");
        }
    }

    /** The layout failed because one name is both a file and a folder (not a failing disk). */
    private static boolean fileAndFolder(java.nio.file.FileSystemException e) {
        return e.getFile() != null && (e instanceof java.nio.file.FileAlreadyExistsException
                || e instanceof java.nio.file.NotDirectoryException || "Is a directory".equals(e.getReason()) || "Not a directory".equals(e.getReason()));
    }

    private static void unzipEntries(ZipInputStream in, Path root, String name, byte[] buffer) throws IOException {
        long expanded = 0;
        int entries = 0;
        Set<String> seen = new HashSet<>();
        ZipEntry e;
        while ((e = in.getNextEntry()) != null) {
            if (++entries > MAX_ENTRIES) {
                throw new BadInputException(name + ": more than " + MAX_ENTRIES + " entries, the most the platform "
                        + "expands; import it with unibench runs import on the machine");
            }
            String rel = relative(e.getName(), name + ": " + e.getName());
            if (rel.isEmpty() || archiverOwn(rel)) continue;
            if (!seen.add(rel)) throw new BadInputException(name + ": " + e.getName() + ": named twice in the archive");
            Path target = inside(root, rel, name + ": " + e.getName());
            if (e.isDirectory()) {
                Files.createDirectories(target);
                continue;
            }
            Files.createDirectories(target.getParent());
            try (OutputStream out = Files.newOutputStream(target)) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    expanded += n;
                    if (expanded > MAX_EXPANDED_BYTES) {
                        throw new BadInputException(name + ": expands to more than " + (MAX_EXPANDED_BYTES >> 20)
                                + " MiB, the most the platform expands; import it with unibench runs import on the "
                                + "machine");
                    }
                    out.write(buffer, 0, n);
                }
            }
        }
        if (seen.isEmpty()) throw new BadInputException(name + ": an empty zip archive");
    }

    /** macOS's resource forks and dot-files an archiver adds: not results, not expanded. */
    private static boolean archiverOwn(String rel) {
        for (String seg : rel.split("/")) if (seg.equals("__MACOSX") || seg.startsWith(".")) return true;
        return false;
    }

    /**
     * A name as a relative path of plain segments ({@code \} read as {@code /}, a trailing {@code /} dropped); bad
     * input saying {@code where} for an absolute path, a drive, {@code ..}, or a control character.
     */
    static String relative(String name, String where) {
        String n = name == null ? "" : name.replace('\\', '/');
        if (n.startsWith("/") || n.matches("^[A-Za-z]:.*")) {
            throw new BadInputException(where + ": an absolute path; an upload's names are relative to its folder");
        }
        List<String> segs = new ArrayList<>();
        for (String seg : n.split("/")) {
            if (seg.isEmpty() || seg.equals(".")) continue;
            if (seg.equals("..")) throw new BadInputException(where + ": a path leading out of its folder (..)");
            if (seg.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw new BadInputException(where + ": a control character in the name");
            }
            segs.add(seg);
        }
        return String.join("/", segs);
    }

    /** {@code rel} under {@code root}, checked to stay inside it after normalising. */
    private static Path inside(Path root, String rel, String where) {
        Path p = root.resolve(rel).normalize();
        if (!p.startsWith(root) || p.equals(root)) {
            throw new BadInputException(where + ": a path leading out of its folder");
        }
        return p;
    }

    /** An upload's name as a plain file name: its last segment, other characters than letters, digits, . _ - as _. */
    static String uploadName(String fileName) {
        String n = shown(fileName).replaceAll("[^A-Za-z0-9._-]", "_");
        return n.isEmpty() || n.startsWith(".") ? "upload" + n : n;
    }

    /** The name an error shows for an upload: its last segment, never a path of the service. */
    static String shown(String fileName) {
        String n = fileName == null ? "" : fileName.replace('\\', '/');
        return n.substring(n.lastIndexOf('/') + 1);
    }

    private static void delete(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary folder left behind holds a copy of what was uploaded, nothing else
        }
    }
}
