/**
 * The picocli commands, one class each ({@link org.rpcrdma4j.mount.command.Commands} lists them). Commands on a mount
 * extend {@code ClientCommand}: the URL, the client options and {@code --stats/--json}; they mount, run and unmount,
 * and leave failures to the tool's one exception handler.
 */
package org.rpcrdma4j.mount.command;
