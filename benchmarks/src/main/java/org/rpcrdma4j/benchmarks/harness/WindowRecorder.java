package org.rpcrdma4j.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * A JDK Flight Recorder recording of exactly one measured window (not the set-up or the warm-up), written to
 * {@code <directory>/<figure key>.jfr} with the JDK's {@code profile} settings; off when no directory is set
 * ({@code --jfr DIR}). One window at a time, from the harness's thread.
 */
final class WindowRecorder {
    private final Path directory;
    private Recording recording;
    private String key;

    WindowRecorder(Path directory) {
        this.directory = directory;
    }

    void start(String figureKey) throws IOException {
        if (directory == null) {
            return;
        }
        try {
            Files.createDirectories(directory);
            recording = new Recording(Configuration.getConfiguration("profile"));
        } catch (ParseException e) {
            throw new IOException("the JDK's profile settings do not parse", e);
        }
        key = figureKey;
        recording.start();
    }

    /** Stops and writes the recording; returns its file, or null when not recording. */
    Path stop() throws IOException {
        if (recording == null) {
            return null;
        }
        try (Recording r = recording) {
            r.stop();
            Path file = directory.resolve(key + ".jfr");
            r.dump(file);
            return file;
        } finally {
            recording = null;
        }
    }
}
