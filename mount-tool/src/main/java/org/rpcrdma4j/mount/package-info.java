/**
 * The {@code rpcrdma} command line ({@code mount-tool.jar}): {@code demo}, {@code serve}, {@code shell}, one-shot
 * {@code ls/get/put/stat/df}, {@code bench} and {@code stats} on NFS exports over RDMA ({@code rdma://}) or TCP
 * ({@code tcp://}).
 * <p>
 * {@link org.rpcrdma4j.mount.Main} configures logging (slf4j-simple, the project's one logging binding, quiet by
 * default) before any logger exists, runs one picocli command and exits with its {@link org.rpcrdma4j.mount.ExitCode}.
 * Every failure becomes one line on stderr through {@link org.rpcrdma4j.mount.Failures} (stack traces only with
 * {@code --verbose}); commands that know better throw a {@link org.rpcrdma4j.mount.CliException}. Commands talk
 * through an {@link org.rpcrdma4j.mount.Io}, never {@code System.out}, so tests run them in-process
 * ({@link org.rpcrdma4j.mount.Main#commandLine}).
 * <p>
 * <b>Interruption.</b> Ctrl-C ends a command by interrupting its thread (a shutdown hook does it and waits a few
 * seconds); commands clean up on the way out: partial files removed, connections and ports closed. In the shell on a
 * terminal Ctrl-C interrupts the running command only.
 * <p>
 * Sub-packages: {@code command} (the picocli commands), {@code cli} (option types), {@code client} (a mount, safe
 * transfers, formats), {@code shell}, {@code bench}, {@code stats}, {@code server} (the embedded server for
 * {@code serve} and {@code demo}), {@code demo}.
 */
package org.rpcrdma4j.mount;
