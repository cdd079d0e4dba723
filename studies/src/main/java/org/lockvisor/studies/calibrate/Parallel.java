package org.lockvisor.studies.calibrate;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs independent simulations (one per seed, or per variant and seed) on {@code jobs} threads and
 * returns their results in the order given, so that a result never depends on the number of jobs.
 * A failure of any task is rethrown as it was thrown (a {@code UserInputException} stays one).
 */
final class Parallel {

  private Parallel() {}

  static <T> List<T> map(List<Callable<T>> tasks, int jobs) {
    checkArgument(jobs >= 1, "jobs must be positive: %s", jobs);
    List<T> out = new ArrayList<>(tasks.size());
    if (jobs == 1 || tasks.size() < 2) {
      for (Callable<T> t : tasks) {
        out.add(call(t));
      }
      return out;
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(jobs, tasks.size()), r -> {
      Thread t = new Thread(r, "lockvisor-calibrate");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (Callable<T> t : tasks) {
        futures.add(pool.submit(t));
      }
      for (Future<T> f : futures) {
        try {
          out.add(f.get());
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) {
            throw r;
          }
          if (e.getCause() instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  private static <T> T call(Callable<T> t) {
    try {
      return t.call();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
