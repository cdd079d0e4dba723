package org.lockvisor.core.trace;

/**
 * Receives timeline records (slices and instants on tracks). The default sink does nothing and
 * reports {@link #enabled()} false so callers can skip building names on hot paths.
 */
public interface TraceSink {

  /** A sink that records nothing. */
  TraceSink NONE = new TraceSink() {
    @Override
    public boolean enabled() {
      return false;
    }

    @Override
    public void track(int track, String name, String group) {}

    @Override
    public void slice(int track, String name, String category, long start, long duration) {}

    @Override
    public void instant(int track, String name, String category, long time) {}
  };

  boolean enabled();

  /** Declares a track (a CPU, a vCPU, a thread) and the group it belongs to. */
  void track(int track, String name, String group);

  /** A complete interval on a track. */
  void slice(int track, String name, String category, long start, long duration);

  /** A point event on a track. */
  void instant(int track, String name, String category, long time);
}
