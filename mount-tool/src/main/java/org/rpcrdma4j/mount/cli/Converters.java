package org.rpcrdma4j.mount.cli;

import java.time.Duration;
import java.util.Locale;

import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.registration.RegistrationMode;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** picocli converters for the option types of the tool; a bad value is a usage error with the reason. */
public final class Converters {
    private Converters() {
    }

    /** A byte count ({@link Sizes}) that fits an int. */
    public static final class IntSize implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            long v = LongSize.parse(value);
            if (v > Integer.MAX_VALUE) {
                throw new TypeConversionException("size too large: '" + value + "'");
            }
            return (int) v;
        }
    }

    /** A byte count ({@link Sizes}). */
    public static final class LongSize implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return parse(value);
        }

        static long parse(String value) {
            try {
                return Sizes.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A duration ({@link Durations}). */
    public static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return Durations.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code auto|frwr|fmr|regmr} (also {@code reg_mr}). */
    public static final class Registration implements ITypeConverter<RegistrationMode> {
        @Override
        public RegistrationMode convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "")) {
                case "auto" -> RegistrationMode.AUTO;
                case "frwr" -> RegistrationMode.FRWR;
                case "fmr" -> RegistrationMode.FMR;
                case "regmr" -> RegistrationMode.REG_MR;
                default -> throw new TypeConversionException("unknown registration mode '" + value
                        + "' (auto, frwr, fmr, regmr)");
            };
        }
    }

    /** An NFS URL ({@code rdma://host[:port]/export[?mountport=N]}, {@code tcp://...}). */
    public static final class Url implements ITypeConverter<NfsUrl> {
        @Override
        public NfsUrl convert(String value) {
            int sep = value.indexOf("://");
            String scheme = sep < 0 ? "" : value.substring(0, sep).toLowerCase(Locale.ROOT);
            if (sep > 0 && !scheme.equals("rdma") && !scheme.equals("tcp") && !scheme.equals("nfs")) {
                throw new TypeConversionException("unknown scheme '" + scheme + "' in " + value + " (rdma or tcp)");
            }
            NfsUrl url;
            try {
                url = NfsUrl.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage()
                        + " (expected rdma://host[:port]/export[?mountport=N] or tcp://host[:port]/export)");
            }
            if (!"rdma".equals(url.scheme()) && !"tcp".equals(url.scheme())) {
                throw new TypeConversionException("unknown scheme '" + url.scheme() + "' in " + value
                        + " (rdma or tcp)");
            }
            return url;
        }
    }
}
