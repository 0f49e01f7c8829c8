package org.rpcrdma4j.xprt.server;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's counters over JMX: one read-only {@code long} attribute per {@link ServerCounter} (server-wide), plus
 * {@code ConnectionCount} and {@code RegisteredPagesInUse}. Registered as
 * {@code org.rpcrdma4j:type=RdmaRpcServer,name=<server name>} on start and unregistered on stop.
 */
final class ServerMBean implements DynamicMBean {
    private static final Logger LOG = LoggerFactory.getLogger(ServerMBean.class);
    private static final String CONNECTIONS = "ConnectionCount";
    private static final String PAGES = "RegisteredPagesInUse";

    private final RdmaRpcServer server;
    private final ObjectName name;
    private final MBeanInfo info;

    private ServerMBean(RdmaRpcServer server, ObjectName name) {
        this.server = server;
        this.name = name;
        List<MBeanAttributeInfo> attributes = new ArrayList<>();
        for (ServerCounter c : ServerCounter.values()) {
            attributes.add(new MBeanAttributeInfo(c.name(), "long", c.name(), true, false, false));
        }
        attributes.add(new MBeanAttributeInfo(CONNECTIONS, "int", "open connections", true, false, false));
        attributes.add(new MBeanAttributeInfo(PAGES, "int", "registered buffer pages in use", true, false, false));
        info = new MBeanInfo(ServerMBean.class.getName(), "RPC-over-RDMA server counters",
                attributes.toArray(new MBeanAttributeInfo[0]), null, null, null);
    }

    /** The MBean's name for a server called {@code serverName}. */
    static ObjectName objectName(String serverName) throws JMException {
        return new ObjectName("org.rpcrdma4j:type=RdmaRpcServer,name=" + ObjectName.quote(serverName));
    }

    /** Registers the server's MBean; null (logged) when JMX refuses, e.g. a second server with the same name. */
    static ServerMBean register(RdmaRpcServer server) {
        try {
            ServerMBean bean = new ServerMBean(server, objectName(server.name()));
            ManagementFactory.getPlatformMBeanServer().registerMBean(bean, bean.name);
            return bean;
        } catch (JMException e) {
            LOG.warn("{}: counters MBean not registered: {}", server.name(), e.toString());
            return null;
        }
    }

    void unregister() {
        try {
            MBeanServer platform = ManagementFactory.getPlatformMBeanServer();
            if (platform.isRegistered(name)) {
                platform.unregisterMBean(name);
            }
        } catch (JMException e) {
            LOG.warn("{}: counters MBean not unregistered: {}", server.name(), e.toString());
        }
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        if (CONNECTIONS.equals(attribute)) {
            return server.connectionCount();
        }
        if (PAGES.equals(attribute)) {
            return server.registeredPagesInUse();
        }
        try {
            return server.counters.get(ServerCounter.valueOf(attribute));
        } catch (IllegalArgumentException e) {
            throw new AttributeNotFoundException(attribute);
        }
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList list = new AttributeList();
        Map<ServerCounter, Long> snapshot = server.counters();
        for (String a : attributes) {
            try {
                Object value = snapshot.containsKey(safe(a)) ? snapshot.get(safe(a)) : getAttribute(a);
                list.add(new Attribute(a, value));
            } catch (AttributeNotFoundException e) {
                // skipped, as JMX expects
            }
        }
        return list;
    }

    private static ServerCounter safe(String name) {
        try {
            return ServerCounter.valueOf(name);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException("no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }
}
