package org.rpcrdma4j.xprt.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread running a set of {@link Agent}s in turn. When no agent has work it parks until the earliest deadline
 * or until {@link #wake()} is called (from a completion listener or a thread that queued a command). Waking is cheap
 * and may be called from any thread, any number of times. An agent with an {@link AgentClaim} is run under it: a
 * round skips an agent another thread holds, and that thread wakes the runner when it lets go.
 */
public final class AgentRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AgentRunner.class);

    private final Thread thread;
    private final List<Agent> agents = new ArrayList<>();
    private final Queue<Agent> toAdd = new ConcurrentLinkedQueue<>();
    private final Queue<Agent> toRemove = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean woken = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;

    public AgentRunner(String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Adds an agent; it runs from the next round on. */
    public void add(Agent agent) {
        toAdd.add(agent);
        wake();
    }

    /** Removes an agent; its {@link Agent#onClose()} runs on the runner thread. */
    public void remove(Agent agent) {
        toRemove.add(agent);
        wake();
    }

    /** Makes the runner do a round soon. */
    public void wake() {
        if (woken.compareAndSet(false, true)) {
            LockSupport.unpark(thread);
        }
    }

    public boolean isRunnerThread() {
        return Thread.currentThread() == thread;
    }

    private void run() {
        try {
            while (running) {
                woken.set(false);
                Agent agent;
                while ((agent = toAdd.poll()) != null) {
                    agents.add(agent);
                }
                while ((agent = toRemove.poll()) != null) {
                    if (agents.remove(agent)) {
                        close(agent);
                    }
                }
                long now = System.nanoTime();
                int work = 0;
                long deadline = Long.MAX_VALUE;
                for (int i = 0; i < agents.size(); i++) {
                    Agent a = agents.get(i);
                    AgentClaim claim = a.claim();
                    if (claim != null && !claim.claimForRound()) {
                        continue; // another thread runs it; that thread wakes us when it lets go
                    }
                    try {
                        work += a.doWork(now);
                    } catch (RuntimeException | Error e) {
                        LOG.error("agent {} failed", a.roleName(), e);
                    } finally {
                        deadline = Math.min(deadline, a.nextDeadlineNanos());
                        if (claim != null && claim.releaseRound()) {
                            work++; // work was left for this round's holder while it ran: one more round
                        }
                    }
                }
                if (work == 0 && !woken.get() && toAdd.isEmpty() && toRemove.isEmpty()) {
                    if (deadline == Long.MAX_VALUE) {
                        LockSupport.park(this);
                    } else {
                        long wait = deadline - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(this, wait);
                        }
                    }
                }
            }
        } finally {
            for (Agent a : agents) {
                close(a);
            }
            agents.clear();
            stopped.countDown();
        }
    }

    private static void close(Agent agent) {
        AgentClaim claim = agent.claim();
        if (claim != null) {
            claim.claimWaiting();
        }
        try {
            agent.onClose();
        } catch (RuntimeException e) {
            LOG.warn("agent {} failed to close", agent.roleName(), e);
        } finally {
            if (claim != null) {
                claim.releaseRound();
            }
        }
    }

    /** Stops the thread after closing every agent; waits for it unless called from the runner thread itself. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        if (!isRunnerThread()) {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
