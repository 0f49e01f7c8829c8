package org.rpcrdma4j.mount.command;

import java.util.List;

/** The commands of the tool, in the order the help lists them. */
public final class Commands {
    private Commands() {
    }

    public static List<Class<?>> all() {
        return List.of(DemoCommand.class, ServeCommand.class, ShellCommand.class, LsCommand.class, GetCommand.class,
                PutCommand.class, CpCommand.class, StatCommand.class, LockCommand.class, DfCommand.class,
                BenchCommand.class, CheckCommand.class, StatsCommand.class);
    }
}
