package org.rpcrdma4j.nfs.v4;

import java.util.Objects;
import org.rpcrdma4j.nfs.SetAttributes;

/**
 * The {@code fattr4} of a SETATTR, or of OPEN's or CREATE's {@code createattrs}, as {@link Fattr4#decodeSettable}
 * read it.
 *
 * @param attributes what to set (a null field is left unchanged)
 * @param attrmask   the bitmap the client sent: what the server reports in {@code attrsset} once all of it is set
 */
public record SettableAttributes(SetAttributes attributes, Bitmap4 attrmask) {
    public SettableAttributes {
        Objects.requireNonNull(attributes, "attributes");
        attrmask = attrmask.freeze();
    }
}
