package org.rpcrdma4j.nfs.server;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The hosts an export is open to, written as in Linux's {@code /etc/exports}: client specs separated by spaces, each
 * a host and its options in parentheses, e.g. {@code "10.0.0.0/8(rw) 192.168.1.7(rw,no_root_squash) *(ro)"}.
 * <p>
 * A host is {@code *} (every host), an IPv4 or IPv6 address, a subnet ({@code 10.0.0.0/8}, {@code 10.0.0.0/255.0.0.0},
 * {@code fd00::/8}), or a host name, which is resolved once, when the specs are read (to the first address it has).
 * The options, with Linux's defaults:
 * <ul>
 * <li>{@code ro} (the default) or {@code rw};</li>
 * <li>{@code root_squash} (the default): a caller with uid 0 acts as the anonymous user, and group 0 as the anonymous
 * group; {@code no_root_squash}: root stays root; {@code all_squash}: every caller acts as the anonymous user;</li>
 * <li>{@code anonuid=N}, {@code anongid=N}: the anonymous user and group (65534 by default);</li>
 * <li>{@code secure}: calls over TCP must come from a privileged port (below 1024), as a client running as root
 * sends them: MOUNT is refused (MNT3ERR_ACCES) and the export's handles answer NFS3ERR_PERM / NFS4ERR_PERM otherwise.
 * Calls over RDMA pass, as Linux's server passes them. {@code insecure} (this server's default, unlike Linux's: a JVM
 * client calls from an unprivileged port) does not check.</li>
 * </ul>
 * {@code sync}, {@code no_subtree_check} and {@code subtree_check} are accepted and change nothing here. Options the
 * server cannot honour ({@code async}, ...) are refused, so that an exports line never promises what the server does
 * not do.
 * <p>
 * When several specs match a host, the most specific kind wins, as with Linux's mountd: an address or host name
 * before a subnet, a subnet before {@code *}; among specs of one kind, the first written. A host no spec matches may
 * not mount the export or use its file handles. Immutable.
 */
public final class ExportClients {
    /** What a host may do with an export. */
    public enum Access {
        /** Nothing: MOUNT is refused, and its file handles answer access denied. */
        NONE,
        /** Read; every change is refused as on a read-only file system. */
        READ_ONLY,
        /** Read and change. */
        READ_WRITE
    }

    /** The anonymous user and group, unless {@code anonuid} and {@code anongid} say otherwise: nobody, nogroup. */
    public static final int NOBODY = 65534;

    /**
     * What one host may do with an export, and as whom its callers act.
     *
     * @param readOnly   every change is refused
     * @param rootSquash a caller with uid 0 acts as {@code anonUid}, and group 0 as {@code anonGid}
     * @param allSquash  every caller acts as {@code anonUid} / {@code anonGid}
     * @param anonUid    the anonymous user
     * @param anonGid    the anonymous group
     * @param secure     calls over TCP must come from a privileged port
     */
    public record Grant(boolean readOnly, boolean rootSquash, boolean allSquash, int anonUid, int anonGid,
                        boolean secure) {
        /** Read and write, root stays root: what an export opened to every host without specs gives. */
        public static final Grant EVERYTHING = new Grant(false, false, false, NOBODY, NOBODY);

        /** A grant that does not check the caller's port ({@code insecure}). */
        public Grant(boolean readOnly, boolean rootSquash, boolean allSquash, int anonUid, int anonGid) {
            this(readOnly, rootSquash, allSquash, anonUid, anonGid, false);
        }

        /** The same grant, read-only. */
        public Grant readOnlyToo() {
            return readOnly ? this : new Grant(true, rootSquash, allSquash, anonUid, anonGid, secure);
        }

        /** The options as {@code /etc/exports} writes them, Linux's defaults left out but for ro/rw. */
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder(readOnly ? "ro" : "rw");
            if (allSquash) {
                b.append(",all_squash");
            } else if (!rootSquash) {
                b.append(",no_root_squash");
            }
            if (anonUid != NOBODY) {
                b.append(",anonuid=").append(anonUid);
            }
            if (anonGid != NOBODY) {
                b.append(",anongid=").append(anonGid);
            }
            if (secure) {
                b.append(",secure");
            }
            return b.toString();
        }
    }

    /** One client spec: a host or subnet, and what it may do. */
    public static final class Spec {
        private final String host;
        private final byte[] network; // null for *
        private final int prefixLength;
        private final boolean subnet;
        private final Grant grant;

        private Spec(String host, byte[] network, int prefixLength, boolean subnet, Grant grant) {
            this.host = host;
            this.network = network;
            this.prefixLength = prefixLength;
            this.subnet = subnet;
            this.grant = grant;
        }

        /** The host as written: {@code *}, an address, a subnet or a host name. */
        public String host() {
            return host;
        }

        /** What the spec grants a host it matches. */
        public Grant grant() {
            return grant;
        }

        /** Whether {@code address} lies in this spec's host or subnet; {@code *} matches every host, even unknown. */
        boolean matches(InetAddress address) {
            if (network == null) {
                return true;
            }
            if (address == null) {
                return false;
            }
            byte[] a = address.getAddress();
            byte[] n = network;
            if (a.length != n.length) {
                a = mapped(a, n.length);
                if (a == null) {
                    return false;
                }
            }
            int full = prefixLength / 8;
            for (int i = 0; i < full; i++) {
                if (a[i] != n[i]) {
                    return false;
                }
            }
            int rest = prefixLength % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (a[full] & mask) == (n[full] & mask);
        }

        /** How specific the spec is, as Linux's mountd ranks them: a host 2, a subnet 1, {@code *} 0. */
        int rank() {
            return network == null ? 0 : subnet ? 1 : 2;
        }

        /** The spec as written in {@code /etc/exports}. */
        @Override
        public String toString() {
            return host + "(" + grant + ")";
        }
    }

    private static final List<String> NO_OPS = List.of("sync", "no_subtree_check", "subtree_check");

    private static final ExportClients EVERY_HOST_RW = new ExportClients(List.of(
            new Spec("*", null, 0, false, Grant.EVERYTHING)));
    private static final ExportClients EVERY_HOST_RO = new ExportClients(List.of(
            new Spec("*", null, 0, false, Grant.EVERYTHING.readOnlyToo())));

    private final List<Spec> specs;
    private final boolean everyHost;

    private ExportClients(List<Spec> specs) {
        this.specs = List.copyOf(specs);
        this.everyHost = this.specs.size() == 1 && this.specs.get(0).network == null;
    }

    /** Every host, read and write, root not squashed ({@code *(rw,no_root_squash)}). */
    public static ExportClients everyHost() {
        return EVERY_HOST_RW;
    }

    /** Every host, read only, root not squashed ({@code *(ro,no_root_squash)}). */
    public static ExportClients everyHostReadOnly() {
        return EVERY_HOST_RO;
    }

    /**
     * Reads client specs as {@code /etc/exports} writes them, e.g. {@code "10.0.0.0/8(rw) *(ro)"}.
     *
     * @throws IllegalArgumentException naming the spec that is malformed, names an unknown host or an option this
     *                                  server does not honour
     */
    public static ExportClients parse(String text) {
        Objects.requireNonNull(text, "text");
        List<Spec> specs = new ArrayList<>();
        for (String item : text.trim().split("\\s+")) {
            if (!item.isEmpty()) {
                specs.add(spec(item));
            }
        }
        if (specs.isEmpty()) {
            throw new IllegalArgumentException("no client specs in \"" + text + "\" (e.g. \"*(rw)\" or "
                    + "\"10.0.0.0/8(rw)\")");
        }
        return new ExportClients(specs);
    }

    private static Spec spec(String item) {
        String host = item;
        boolean readOnly = true;
        boolean rootSquash = true;
        boolean allSquash = false;
        int anonUid = NOBODY;
        int anonGid = NOBODY;
        boolean secure = false;
        int open = item.indexOf('(');
        if (open >= 0) {
            if (!item.endsWith(")") || item.indexOf('(', open + 1) >= 0) {
                throw new IllegalArgumentException("client spec \"" + item + "\": write HOST(OPTIONS), e.g. *(rw)");
            }
            host = item.substring(0, open);
            for (String option : item.substring(open + 1, item.length() - 1).split(",")) {
                String o = option.trim().toLowerCase(Locale.ROOT);
                switch (o) {
                    case "rw" -> readOnly = false;
                    case "ro" -> readOnly = true;
                    case "root_squash" -> rootSquash = true;
                    case "no_root_squash" -> rootSquash = false;
                    case "all_squash" -> allSquash = true;
                    case "no_all_squash" -> allSquash = false;
                    case "secure" -> secure = true;
                    case "insecure" -> secure = false;
                    default -> {
                        if (o.startsWith("anonuid=")) {
                            anonUid = id(item, o);
                        } else if (o.startsWith("anongid=")) {
                            anonGid = id(item, o);
                        } else if (!o.isEmpty() && !NO_OPS.contains(o)) {
                            throw new IllegalArgumentException("client spec \"" + item + "\": option " + o + " is not "
                                    + "supported (this server knows rw, ro, root_squash, no_root_squash, all_squash, "
                                    + "anonuid=N, anongid=N, secure, insecure, and takes " + String.join(", ", NO_OPS)
                                    + " as what it does anyway)");
                        }
                    }
                }
            }
        }
        Grant grant = new Grant(readOnly, rootSquash, allSquash, anonUid, anonGid, secure);
        if (host.isEmpty()) {
            throw new IllegalArgumentException("client spec \"" + item + "\" names no host (use * for every host)");
        }
        if (host.equals("*")) {
            return new Spec("*", null, 0, false, grant);
        }
        int slash = host.indexOf('/');
        if (slash < 0) {
            byte[] address = address(item, host);
            return new Spec(host, address, address.length * 8, false, grant);
        }
        byte[] network = literal(item, host.substring(0, slash));
        String bits = host.substring(slash + 1);
        int prefix = bits.contains(".") ? maskLength(item, literal(item, bits), network.length)
                : prefixLength(item, bits, network.length * 8);
        return new Spec(host, network, prefix, true, grant);
    }

    private static int id(String item, String option) {
        String value = option.substring(option.indexOf('=') + 1);
        try {
            long n = Long.parseLong(value);
            if (n >= 0 && n <= 0xffffffffL) {
                return (int) n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("client spec \"" + item + "\": " + option + " is not a user or group id");
    }

    /** A host name's or address's bytes: a name is resolved now, to its first address. */
    private static byte[] address(String item, String host) {
        try {
            return InetAddress.getByName(host).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("client spec \"" + item + "\": unknown host " + host);
        }
    }

    /** An address written as digits (no name lookup). */
    private static byte[] literal(String item, String text) {
        if (text.isEmpty() || !(text.contains(":") || text.chars().allMatch(c -> c == '.' || Character.isDigit(c)))) {
            throw new IllegalArgumentException("client spec \"" + item + "\": " + text + " is not an IP address");
        }
        byte[] a;
        try {
            a = InetAddress.getByName(text).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("client spec \"" + item + "\": " + text + " is not an IP address");
        }
        return text.contains(":") && a.length == 4 ? mapped(a, 16) : a; // ::ffff:a.b.c.d stays IPv6
    }

    private static int prefixLength(String item, String bits, int max) {
        try {
            int n = Integer.parseInt(bits);
            if (n >= 0 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("client spec \"" + item + "\": prefix length " + bits + " is not within 0.."
                + max);
    }

    private static int maskLength(String item, byte[] mask, int length) {
        if (mask.length != length) {
            throw new IllegalArgumentException("client spec \"" + item + "\": netmask and address differ in kind");
        }
        int n = 0;
        boolean ended = false;
        for (byte b : mask) {
            for (int bit = 7; bit >= 0; bit--) {
                boolean set = ((b >> bit) & 1) != 0;
                if (set && ended) {
                    throw new IllegalArgumentException("client spec \"" + item + "\": netmask bits are not "
                            + "contiguous");
                }
                if (set) {
                    n++;
                } else {
                    ended = true;
                }
            }
        }
        return n;
    }

    /** An IPv4 address as IPv4-mapped IPv6, or the IPv4 address inside a mapped IPv6 one; null when neither. */
    private static byte[] mapped(byte[] a, int length) {
        if (a.length == 4 && length == 16) {
            byte[] m = new byte[16];
            m[10] = (byte) 0xff;
            m[11] = (byte) 0xff;
            System.arraycopy(a, 0, m, 12, 4);
            return m;
        }
        if (a.length == 16 && length == 4) {
            for (int i = 0; i < 10; i++) {
                if (a[i] != 0) {
                    return null;
                }
            }
            if (a[10] != (byte) 0xff || a[11] != (byte) 0xff) {
                return null;
            }
            byte[] v4 = new byte[4];
            System.arraycopy(a, 12, v4, 0, 4);
            return v4;
        }
        return null;
    }

    /** The specs, as given. */
    public List<Spec> specs() {
        return specs;
    }

    /** Whether every host gets the same access ({@code *} alone). */
    public boolean isEveryHost() {
        return everyHost;
    }

    /**
     * What {@code client} may do: the grant of the matching spec of the most specific kind, null when none matches.
     * An unknown client (null) matches only {@code *}.
     */
    public Grant grant(InetAddress client) {
        if (everyHost) {
            return specs.get(0).grant;
        }
        Spec best = null;
        for (Spec s : specs) {
            if (s.matches(client) && (best == null || s.rank() > best.rank())) {
                best = s;
            }
        }
        return best == null ? null : best.grant;
    }

    /** What {@code client} may do, in short: {@link #grant}'s read-only flag, or {@link Access#NONE}. */
    public Access access(InetAddress client) {
        Grant g = grant(client);
        return g == null ? Access.NONE : g.readOnly() ? Access.READ_ONLY : Access.READ_WRITE;
    }

    /** The specs as {@code /etc/exports} writes them, e.g. {@code 10.0.0.0/8(rw) *(ro)}, Linux's defaults left out. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Spec s : specs) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(s);
        }
        return b.toString();
    }
}
