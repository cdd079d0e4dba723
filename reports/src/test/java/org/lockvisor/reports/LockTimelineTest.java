package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.runner.LockClassStats;

/**
 * The lock timeline of an overcommitted locktorture run (8 vCPUs pinned four per CPU on 2 CPUs,
 * 16 writers on one ticket spinlock), read
 * back from the page's SVG: holds never overlap (mutual exclusion), every holder-preempted interval
 * lies inside a hold by that holder and inside a preempted interval of the vCPU it names, a vCPU is
 * never running and preempted at once, holders do get preempted here, and the waits drawn add up
 * to lock_stat's wait total (up to the waits cut at the window's start).
 */
class LockTimelineTest {

  private static final Pattern ITEM = Pattern.compile("<rect class=\"tlr\" data-s=\"(\\d+)\" data-e=\"(\\d+)\"[^>]*>"
      + "<title>([^<]*), [-0-9.]+ us-[-0-9.]+ us \\([^)]*\\)</title>");

  private record Item(long start, long end, String title) {}

  private static RunOutputs run;
  private static List<Item> items;

  @BeforeAll
  static void runOnce() {
    run = RunOutputsTest.run(overcommitted(), "base", 0);
    items = new ArrayList<>();
    Matcher m = ITEM.matcher(run.timelineHtml());
    while (m.find()) {
      items.add(new Item(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), m.group(3)));
    }
  }

  static Experiment overcommitted() {
    return Experiment.builder("overcommit").seed(42).warmupNs(2_000_000).durationNs(4_000_000).host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(8).pinning(0, 1, 0, 1, 0, 1, 0, 1).spinlock("ticket").vcpuIsPreempted(true)
            .workload("torture", "locktorture", Map.of("torture-type", "spin_lock", "nwriters", "16",
                "hold-ns", "2us", "think-ns", "1us", "think-jitter-ns", "2us")))
        .build();
  }

  private static List<Item> titled(String regex) {
    Pattern p = Pattern.compile(regex);
    return items.stream().filter(i -> p.matcher(i.title()).matches()).sorted(Comparator.comparingLong(Item::start))
        .toList();
  }

  @Test
  void holds_neverOverlap() {
    List<Item> holds = titled("held by .*");
    assertThat(holds).hasSizeGreaterThan(100);
    for (int i = 1; i < holds.size(); i++) {
      assertThat(holds.get(i).start()).as("hold %s after %s", holds.get(i), holds.get(i - 1))
          .isGreaterThanOrEqualTo(holds.get(i - 1).end());
    }
  }

  @Test
  void holderPreempted_liesInsideAHoldByThatHolder_andInsideItsVcpusPreemption() {
    List<Item> preempted = titled(".* holds .* on preempted .*");
    assertThat(preempted).as("holders preempted on an overcommitted host").isNotEmpty();
    for (Item p : preempted) {
      String holder = p.title().substring(0, p.title().indexOf(" holds "));
      String vcpu = p.title().substring(p.title().indexOf(" on preempted ") + " on preempted ".length());
      assertThat(titled("held by " + Pattern.quote(holder))).as(p.toString())
          .anyMatch(h -> h.start() <= p.start() && p.end() <= h.end());
      assertThat(titled(Pattern.quote(vcpu) + " preempted")).as(p.toString())
          .anyMatch(v -> v.start() <= p.start() && p.end() <= v.end());
    }
  }

  @Test
  void vcpu_isNeverRunningAndPreemptedAtOnce() {
    for (int v = 0; v < 8; v++) {
      List<Item> bands = titled("vm0/vcpu" + v + " (running|preempted)");
      for (int i = 1; i < bands.size(); i++) {
        assertThat(bands.get(i).start()).as(bands.get(i).toString()).isGreaterThanOrEqualTo(bands.get(i - 1).end());
      }
    }
  }

  @Test
  void waits_addUpToLockStatsWaitTotal() {
    LockClassStats lock = run.result().lockStat().classes().get(0);
    long drawn = titled(".* waits for .*").stream().mapToLong(i -> i.end() - i.start()).sum();

    assertThat(drawn).isPositive().isLessThanOrEqualTo(lock.waitTotalNs());
    // Only waits that began before the window opened are cut (at most one per writer).
    assertThat(lock.waitTotalNs() - drawn).isLessThanOrEqualTo(16 * lock.waitMaxNs());
  }

  @Test
  void longLockName_keepsItsHeadAndTail_wholeNameInTheTooltip() {
    String name = "vm0/virtio-blk0/virtqueue_request_queue_0/vq_lock_of_a_very_long_named_device_queue";

    String label = LockTimelineSvg.rowLabel(name);
    String under = LockTimelineSvg.rowLabel(name + "\u0000holder's vCPU preempted");

    // the head names the VM and the device: it was cut away (".." + tail) before
    assertThat(label).startsWith("vm0/virtio-blk0/").endsWith("device_queue").contains("\u2026")
        .hasSizeLessThanOrEqualTo(40);
    assertThat(under).startsWith("\u2003holder's vCPU preempted");
    assertThat(LockTimelineSvg.fullLabel(name + "\u0000waits: x")).isEqualTo("waits: x");
  }
}
