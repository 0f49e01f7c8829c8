package org.rpcrdma4j.nfs.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A future that a transport completes on its own thread (where the reply was processed) while keeping the caller's
 * code off that thread: a thread blocked in {@link #get()} or {@link #join()} is woken directly (one thread hand-off
 * from reply to caller, as with a stream transport), but every dependent stage registered while the future is
 * pending ({@code thenApply}, {@code whenComplete}, ...) runs on the {@code callbacks} executor, as its
 * {@code ...Async} form would. A stage registered after completion runs at once on the registering thread, as
 * usual. So a callback may block, or call the transport again, without holding up the transport.
 * <p>
 * {@link #thenApplyInline} is for the client's own short, non-blocking result mapping, which runs on the completing
 * thread.
 * <p>
 * With a {@link ReplySpin}, a thread that waits in {@link #get()}, {@link #get(long, TimeUnit)} or {@link #join()}
 * first polls for the result as it says, and parks only when it has not come: a small call's reply usually comes
 * sooner than the wake-up of a parked thread would.
 *
 * @param <T> the result type
 */
public final class CallbackFuture<T> extends CompletableFuture<T> {
    private final Executor callbacks;
    private final ReplySpin spin;

    /** @param callbacks where dependent stages run (borrowed) */
    public CallbackFuture(Executor callbacks) {
        this(callbacks, ReplySpin.NONE);
    }

    /**
     * @param callbacks where dependent stages run (borrowed)
     * @param spin      how a waiting thread polls for the result before it parks (shared)
     */
    public CallbackFuture(Executor callbacks, ReplySpin spin) {
        this.callbacks = callbacks;
        this.spin = spin;
    }

    /**
     * Maps the result on the completing thread ({@code fn} must be short and must not block) into a future of the
     * same kind. Failures are passed on as {@code thenApply} passes them ({@link CompletionException} around the
     * cause).
     */
    public <U> CallbackFuture<U> thenApplyInline(Function<? super T, ? extends U> fn) {
        CallbackFuture<U> out = new CallbackFuture<>(callbacks, spin);
        super.whenComplete((value, failure) -> {
            if (failure != null) {
                out.completeExceptionally(wrap(failure));
                return;
            }
            U mapped;
            try {
                mapped = fn.apply(value);
            } catch (RuntimeException | Error e) {
                out.completeExceptionally(wrap(e));
                return;
            }
            out.complete(mapped);
        });
        return out;
    }

    /** A new pending future of this kind: its stages run on this one's executor, its waiters poll as this one's. */
    public <U> CallbackFuture<U> sibling() {
        return new CallbackFuture<>(callbacks, spin);
    }

    /**
     * Runs {@code action} on the completing thread when this future completes ({@code action} must be short, must not
     * block, and must catch what it throws), or at once on the calling thread when it has completed already.
     */
    public void whenCompleteInline(BiConsumer<? super T, ? super Throwable> action) {
        super.whenComplete(action);
    }

    private static Throwable wrap(Throwable failure) {
        return failure instanceof CompletionException ? failure : new CompletionException(failure);
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }

    @Override
    public Executor defaultExecutor() {
        return callbacks;
    }

    @Override
    public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
        return isDone() ? super.thenApply(fn) : super.thenApplyAsync(fn, callbacks);
    }

    @Override
    public CompletableFuture<Void> thenAccept(Consumer<? super T> action) {
        return isDone() ? super.thenAccept(action) : super.thenAcceptAsync(action, callbacks);
    }

    @Override
    public CompletableFuture<Void> thenRun(Runnable action) {
        return isDone() ? super.thenRun(action) : super.thenRunAsync(action, callbacks);
    }

    @Override
    public <U, V> CompletableFuture<V> thenCombine(CompletionStage<? extends U> other,
                                                   BiFunction<? super T, ? super U, ? extends V> fn) {
        return super.thenCombineAsync(other, fn, callbacks);
    }

    @Override
    public <U> CompletableFuture<Void> thenAcceptBoth(CompletionStage<? extends U> other,
                                                      BiConsumer<? super T, ? super U> action) {
        return super.thenAcceptBothAsync(other, action, callbacks);
    }

    @Override
    public CompletableFuture<Void> runAfterBoth(CompletionStage<?> other, Runnable action) {
        return super.runAfterBothAsync(other, action, callbacks);
    }

    @Override
    public <U> CompletableFuture<U> applyToEither(CompletionStage<? extends T> other, Function<? super T, U> fn) {
        return super.applyToEitherAsync(other, fn, callbacks);
    }

    @Override
    public CompletableFuture<Void> acceptEither(CompletionStage<? extends T> other, Consumer<? super T> action) {
        return super.acceptEitherAsync(other, action, callbacks);
    }

    @Override
    public CompletableFuture<Void> runAfterEither(CompletionStage<?> other, Runnable action) {
        return super.runAfterEitherAsync(other, action, callbacks);
    }

    @Override
    public <U> CompletableFuture<U> thenCompose(Function<? super T, ? extends CompletionStage<U>> fn) {
        return following(isDone() ? super.thenCompose(fn) : super.thenComposeAsync(fn, callbacks));
    }

    @Override
    public <U> CompletableFuture<U> handle(BiFunction<? super T, Throwable, ? extends U> fn) {
        return isDone() ? super.handle(fn) : super.handleAsync(fn, callbacks);
    }

    @Override
    public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
        return isDone() ? super.whenComplete(action) : super.whenCompleteAsync(action, callbacks);
    }

    @Override
    public CompletableFuture<T> exceptionally(Function<Throwable, ? extends T> fn) {
        return isDone() ? super.exceptionally(fn) : super.exceptionallyAsync(fn, callbacks);
    }

    @Override
    public CompletableFuture<T> exceptionallyCompose(Function<Throwable, ? extends CompletionStage<T>> fn) {
        return following(isDone() ? super.exceptionallyCompose(fn) : super.exceptionallyComposeAsync(fn, callbacks));
    }

    /**
     * What a composing stage gives. The step it composed completes on whatever thread finished that step (a
     * transport's, when the step was another call), and so would the plain future composing returns, with the stages
     * registered on it. So a pending one is followed by a future of this kind, whose stages run on {@code callbacks}
     * and whose waiters poll as this one's do.
     */
    private <U> CompletableFuture<U> following(CompletableFuture<U> composed) {
        return composed.isDone() ? composed : following(composed, callbacks, spin);
    }

    /**
     * A future of this kind that completes as {@code f} does (on the thread that completes {@code f}), for a result
     * made from other futures that must keep the caller's stages off the threads those complete on.
     */
    public static <U> CallbackFuture<U> following(CompletableFuture<U> f, Executor callbacks, ReplySpin spin) {
        CallbackFuture<U> out = new CallbackFuture<>(callbacks, spin);
        f.whenComplete((value, failure) -> {
            if (failure != null) {
                out.completeExceptionally(failure);
            } else {
                out.complete(value);
            }
        });
        return out;
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        spin();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        spin();
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        spin();
        return super.join();
    }

    private void spin() {
        spin.await(this);
    }
}
