package org.lockvisor.machine;

import java.util.ArrayList;
import java.util.List;

/** Spinners whose exit condition depends on a CPU's or task's running state. */
final class TaskWatchers {
  private final List<Task> tasks = new ArrayList<>(4);

  void add(Task t) {
    tasks.add(t);
  }

  void remove(Task t) {
    tasks.remove(t);
  }

  void pokeAll() {
    for (int i = 0; i < tasks.size(); i++) {
      tasks.get(i).poke(0);
    }
  }

  int size() {
    return tasks.size();
  }
}
