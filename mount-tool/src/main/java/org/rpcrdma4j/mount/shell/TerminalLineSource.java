package org.rpcrdma4j.mount.shell;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

import org.jline.reader.Candidate;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * Lines from the terminal through JLine: editing, history (kept in {@code ~/.rpcrdma_history}), completion of
 * command names and remote paths. Ctrl-C at the prompt drops the line; during a command it interrupts the command.
 */
public final class TerminalLineSource implements LineSource {
    private final Terminal terminal;
    private final LineReader reader;

    /**
     * @param commands  command names, completed as the first word
     * @param completer remote names for a partial path (the typed word), completed as later words
     */
    public TerminalLineSource(List<String> commands, Function<String, List<String>> completer) throws IOException {
        this.terminal = TerminalBuilder.builder().system(true).build();
        this.reader = LineReaderBuilder.builder()
                .terminal(terminal)
                .appName("rpcrdma")
                .variable(LineReader.HISTORY_FILE, Path.of(System.getProperty("user.home"), ".rpcrdma_history"))
                .completer((r, line, candidates) -> {
                    if (line.wordIndex() == 0) {
                        commands.forEach(c -> candidates.add(new Candidate(c)));
                    } else {
                        for (String s : completer.apply(line.word())) {
                            candidates.add(new Candidate(s, s, null, null, null, null, !s.endsWith("/")));
                        }
                    }
                })
                .build();
    }

    @Override
    public String readLine(String prompt) throws IOException {
        try {
            return reader.readLine(prompt);
        } catch (UserInterruptException e) {
            throw new Interrupted();
        } catch (EndOfFileException e) {
            return null;
        }
    }

    @Override
    public void runInterruptibly(Runnable command) {
        Thread runner = Thread.currentThread();
        Terminal.SignalHandler previous = terminal.handle(Terminal.Signal.INT, s -> runner.interrupt());
        try {
            command.run();
        } finally {
            terminal.handle(Terminal.Signal.INT, previous);
            Thread.interrupted(); // a late Ctrl-C must not hit the next prompt
        }
    }

    @Override
    public void close() {
        try {
            reader.getHistory().save();
            terminal.close();
        } catch (IOException e) {
            // nothing left to do at exit
        }
    }
}
