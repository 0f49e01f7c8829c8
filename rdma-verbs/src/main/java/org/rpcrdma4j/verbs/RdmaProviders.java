package org.rpcrdma4j.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Finds providers through {@link ServiceLoader} and picks one by name, or {@code auto}. */
public final class RdmaProviders {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaProviders.class);

    /** Order of preference for {@code auto}: hardware first, then the software device. */
    private static final List<String> AUTO_ORDER = List.of("disni", "soft");

    private RdmaProviders() {
    }

    public static List<RdmaProvider> all() {
        List<RdmaProvider> providers = new ArrayList<>();
        for (RdmaProvider provider : ServiceLoader.load(RdmaProvider.class, RdmaProviders.class.getClassLoader())) {
            providers.add(provider);
        }
        return providers;
    }

    /**
     * The provider named {@code name}, or for {@code auto} the first available of {@code disni, soft}, logging which
     * one was chosen and why the others were passed over.
     *
     * @throws VerbsException when no such provider is on the class path, or it is not available (with its reason)
     */
    public static RdmaProvider select(String name) throws VerbsException {
        String wanted = name == null ? "auto" : name.toLowerCase(Locale.ROOT);
        List<RdmaProvider> providers = all();
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
            throw new VerbsException("no RDMA provider available" + passed);
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
        throw new VerbsException("no RDMA provider named '" + wanted + "' (on the class path: " + names + ")");
    }
}
