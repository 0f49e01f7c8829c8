/**
 * Option types of the command line: sizes ({@code 4k}, {@code 1MiB}), durations ({@code 500ms}, {@code 10s}), URLs,
 * registration modes, the client options every mounting command shares ({@link org.rpcrdma4j.mount.cli.ClientOptions}:
 * transport override, provider, registration, credits, inline sizes, timeouts, transfer sizes) and the provider
 * options ({@link org.rpcrdma4j.mount.cli.ProviderOptions}). Bad values are usage errors naming the option.
 */
package org.rpcrdma4j.mount.cli;
