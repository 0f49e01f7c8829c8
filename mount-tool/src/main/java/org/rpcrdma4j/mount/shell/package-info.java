/**
 * The interactive shell: {@link org.rpcrdma4j.mount.shell.Shell} holds the session state (remote and local working
 * directories) and runs one command per line; lines come from a {@link org.rpcrdma4j.mount.shell.LineSource}, JLine on
 * a terminal ({@link org.rpcrdma4j.mount.shell.TerminalLineSource}: editing, history, completion of commands and
 * remote names, Ctrl-C interrupting the running command) or plain standard input for scripts.
 * {@link org.rpcrdma4j.mount.shell.Words} splits lines with shell quoting.
 */
package org.rpcrdma4j.mount.shell;
