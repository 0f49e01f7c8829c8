package org.rpcrdma4j.verbs;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds providers through {@link ServiceLoader} and picks one by name, or {@code auto}. A provider on the class path
 * that this Java cannot load (the {@code ffm} provider needs Java 22) is passed over, and named with the reason when
 * no provider is found.
 */
public final class RdmaProviders {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaProviders.class);

    /** Order of preference for {@code auto}: hardware (through the FFM API, then DiSNI), then the software device. */
    private static final List<String> AUTO_ORDER = List.of("ffm", "disni", "soft");
    private static final Pattern CLASS_VERSION = Pattern.compile("class file version (\\d+)");

    private RdmaProviders() {
    }

    public static List<RdmaProvider> all() {
        return scan(RdmaProviders.class.getClassLoader()).providers();
    }

    /** The providers {@code loader} offers, and why those it names but cannot load were left out. */
    static Scan scan(ClassLoader loader) {
        List<RdmaProvider> providers = new ArrayList<>();
        List<String> unloadable = new ArrayList<>();
        Iterator<RdmaProvider> it = ServiceLoader.load(RdmaProvider.class, loader).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                providers.add(it.next());
            } catch (ServiceConfigurationError | LinkageError e) {
                // a class for a newer Java fails to load with UnsupportedClassVersionError, unwrapped
                String why = unloadable(e);
                LOG.debug("an RDMA provider on the class path cannot be loaded: {}", why);
                unloadable.add(why);
            }
        }
        return new Scan(List.copyOf(providers), List.copyOf(unloadable));
    }

    /** Why a provider could not be loaded, in one line. */
    static String unloadable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnsupportedClassVersionError) {
                Matcher m = CLASS_VERSION.matcher(String.valueOf(t.getMessage()));
                String needs = m.find() ? "Java " + (Integer.parseInt(m.group(1)) - 44) + " or later" : "a newer Java";
                String name = String.valueOf(t.getMessage()).split(" ")[0];
                return name + " needs " + needs + " (this is Java " + Runtime.version().feature() + ")";
            }
        }
        return String.valueOf(e.getMessage());
    }

    /** What a class path offers. */
    record Scan(List<RdmaProvider> providers, List<String> unloadable) {
        String unloadableNote() {
            return unloadable.isEmpty() ? "" : "; not loadable here: " + String.join("; ", unloadable);
        }
    }

    /**
     * The provider named {@code name}, or for {@code auto} the first available of {@code ffm, disni, soft}, logging
     * which one was chosen and why the others were passed over.
     *
     * @throws VerbsException when no such provider is on the class path, or it is not available (with its reason)
     */
    public static RdmaProvider select(String name) throws VerbsException {
        String wanted = name == null ? "auto" : name.toLowerCase(Locale.ROOT);
        Scan scan = scan(RdmaProviders.class.getClassLoader());
        List<RdmaProvider> providers = scan.providers();
        if (wanted.equals("auto")) {
            StringBuilder passed = new StringBuilder();
            for (String candidate : AUTO_ORDER) {
                for (RdmaProvider provider : providers) {
                    if (provider.name().equals(candidate)) {
                        RdmaProvider.Availability availability = provider.availability();
                        if (availability.available()) {
                            LOG.info("RDMA provider '{}' chosen: {}{}", candidate, availability.reason(), passed);
                            return provider;
                        }
                        passed.append("; '").append(candidate).append("' passed over: ").append(availability.reason());
                    }
                }
            }
            throw new VerbsException("no RDMA provider available" + passed + scan.unloadableNote());
        }
        for (RdmaProvider provider : providers) {
            if (provider.name().equals(wanted)) {
                RdmaProvider.Availability availability = provider.availability();
                if (!availability.available()) {
                    throw new VerbsException("RDMA provider '" + wanted + "' is not available: " + availability.reason());
                }
                return provider;
            }
        }
        List<String> names = new ArrayList<>();
        providers.forEach(p -> names.add(p.name()));
        throw new VerbsException("no RDMA provider named '" + wanted + "' (on the class path: " + names
                + scan.unloadableNote() + ")");
    }
}
