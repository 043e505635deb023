package io.unibench.cli;

import picocli.CommandLine;

/** Version from the jar manifest (or "dev" when run from classes). */
final class Version implements CommandLine.IVersionProvider {
    static String current() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override
    public String[] getVersion() {
        return new String[] {"unibench " + current() + " (Java " + Runtime.version() + ")"};
    }
}
