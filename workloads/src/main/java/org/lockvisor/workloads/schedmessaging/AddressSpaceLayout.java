package org.lockvisor.workloads.schedmessaging;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;

/**
 * The VMAs of the benchmark's processes in address order, as {@code dup_mmap} (kernel/fork.c, 4.8)
 * and {@code free_pgtables} (mm/memory.c, from {@code exit_mmap}, 4.8) walk {@code mm->mmap}: per
 * VMA, the root anon_vma's rwsem when the VMA has an anon_vma ({@code anon_vma_fork} returns at
 * once for {@code !pvma->anon_vma}; {@code unlink_anon_vmas}), then the file's {@code
 * i_mmap_rwsem} when it maps a file ({@code vma_interval_tree_insert_after} under {@code
 * i_mmap_lock_write}; {@code unlink_file_vma}). Every child is a fork of the same parent, so every
 * process walks the same list.
 *
 * <p>Two layouts:
 *
 * <ul>
 *   <li>{@code perf-4.8} ({@link #perf48()}): the perf binary of a 4.8 tools/perf build on ppc64le
 *       with its shared libraries, as the loader maps them. Sources: the libraries are 4.8's
 *       tools/perf/Makefile.config {@code EXTLIBS} ({@code -lpthread -lrt -lm -ldl}, then {@code
 *       -lelf}, {@code -ldw}, powerpc's {@code LIBUNWIND_LIBS = -lunwind -lunwind-ppc64}, {@code
 *       -lcrypto}, {@code -lslang}, perl's {@code ExtUtils::Embed ldopts}, python's libs plus
 *       {@code -lutil}, {@code -lz}, {@code -llzma}, {@code -lnuma}) for a build with every
 *       feature found, plus the loader's transitive ones (libbz2 from libdw, libcrypt from libperl,
 *       as in the ldd listings of perf builds in the kernel's mailing lists, e.g. Li Huafei's of
 *       23 August 2021); their VMAs follow glibc's {@code _dl_map_segments} (elf/dl-map-segments.h,
 *       2.22+; called from {@code _dl_map_object_from_fd}, elf/dl-load.c): the whole extent is
 *       mapped from the file with the text's protection, the hole up to the data segment is
 *       {@code mprotect}ed to {@code PROT_NONE} when there is one ({@code has_holes}), the data
 *       segment is mapped over the rest, and {@code _dl_protect_relro} later splits its RELRO
 *       part read-only — r-x, [---], r--, rw-, all mapping the file. The hole exists when the data
 *       segment's first page is not the page after the text's last ({@code has_holes}: a
 *       segment's {@code mapstart} differs from the previous {@code mapend}, both rounded to the
 *       running kernel's page size), i.e. when the page is smaller than the link's max-page-size
 *       (2 MiB on x86_64, so 4 KiB pages have it; 64 KiB on ppc64, so a 64 KiB-page ppc64le kernel
 *       has none: a ppc64le /proc/PID/maps shows each library as r-xp, r--p, rw-p, e.g. Donet
 *       Tom's listings in "Re: [PATCH 1/6] mm/selftests: Fix virtual_address_range test issues",
 *       linux-kselftest, June 2025). The loader writes the data
 *       segment (relocations) before the RELRO split, so r-- and rw- share one anon_vma ({@code
 *       __split_vma} → {@code anon_vma_clone}). The perf executable and ld64.so.2 are mapped by
 *       the kernel ({@code load_elf_binary}, {@code load_elf_interp}, fs/binfmt_elf.c) segment by
 *       segment, without a hole: r-x, r--, rw-. Anonymous: perf's bss ({@code vm_brk}), the heap
 *       and the stack, each with its own anon_vma. Address order with the top-down mmap layout:
 *       the executable and its bss and heap at the bottom, then the libraries in reverse load order
 *       (each {@code mmap} lands below the previous one), {@code [vdso]} and ld64.so.2 (mapped by
 *       the kernel before any library), the stack on top. {@code [vdso]} is a special mapping
 *       without file or anon_vma: it takes no lock.
 *   <li>{@code uniform} ({@link #uniform}): the earlier synthetic space, {@code files} files of
 *       {@code vmasPerFile} VMAs each, whose last VMA carries anonymous VMA {@code f}, the other
 *       anonymous VMAs last.
 * </ul>
 *
 * <p>Simplifications: a library's bss beyond its last file page (an anonymous {@code MAP_FIXED}
 * mapping in {@code _dl_map_segments} when {@code zeroend > zeropage}) is left out; so are
 * anonymous mappings the parent made before forking (malloc's mmap threshold is 128 KiB; perf's
 * per-group allocations are smaller).
 *
 * @param name the layout's name ({@code perf-4.8} or {@code uniform})
 * @param files the mapped files, one i_mmap rwsem each, in lock-index order
 * @param anonRoots the root anon_vmas, one rwsem each, lock indices after the files
 * @param vmas every VMA in address order
 */
public record AddressSpaceLayout(String name, ImmutableList<String> files, ImmutableList<String> anonRoots,
    ImmutableList<Vma> vmas) {

  /** The layout of a 4.8 tools/perf build on ppc64le with every optional library found. */
  public static final String PERF_4_8 = "perf-4.8";
  /** The synthetic layout of {@code mapped-files}, {@code vmas-per-file} and {@code anon-vmas}. */
  public static final String UNIFORM = "uniform";

  /**
   * The shared objects the loader maps for perf 4.8, in load order (breadth first over
   * DT_NEEDED: perf's own in link order, then the transitive ones).
   */
  public static final ImmutableList<String> PERF_4_8_LIBRARIES = libraries("ppc64");

  /**
   * The shared objects for a build on {@code unwindArch}'s libunwind ({@code ppc64}, {@code
   * x86_64}, {@code aarch64}; null or anything else: 4.8's Makefile.config sets no
   * LIBUNWIND_LIBS, so NO_LIBUNWIND and neither libunwind library).
   */
  public static ImmutableList<String> libraries(String unwindArch) {
    ImmutableList.Builder<String> b = ImmutableList.builder();
    b.add("libpthread.so.0", "librt.so.1", "libm.so.6", "libdl.so.2"); // EXTLIBS = -lpthread -lrt -lm -ldl
    b.add("libelf.so.1", "libdw.so.1"); // NO_LIBELF unset: -lelf; DWARF (PERF_HAVE_DWARF_REGS): -ldw
    if ("ppc64".equals(unwindArch) || "x86_64".equals(unwindArch) || "aarch64".equals(unwindArch)) {
      // powerpc: LIBUNWIND_LIBS := -lunwind -lunwind-ppc64 (x86_64, arm64 alike)
      b.add("libunwind.so.8", "libunwind-" + unwindArch + ".so.8");
    }
    b.add("libcrypto.so.1.0.0"); // feature-libcrypto: -lcrypto (jitdump)
    b.add("libslang.so.2"); // feature-libslang: -lslang (TUI)
    b.add("libperl.so.5.22"); // PERL_EMBED_LIBADD (ExtUtils::Embed ldopts)
    b.add("libpython2.7.so.1.0", "libutil.so.1"); // PYTHON_EMBED_LIBADD ... -lutil
    b.add("libz.so.1", "liblzma.so.5", "libnuma.so.1"); // -lz, -llzma, -lnuma
    b.add("libc.so.6");
    b.add("libbz2.so.1.0"); // needed by libdw (elfutils built with bzip2)
    b.add("libcrypt.so.1"); // needed by libperl
    return b.build();
  }

  /** The libunwind flavour of an arch profile's name (ppc64-powervm: ppc64), null when 4.8 perf has none. */
  public static String unwindArch(String archProfile) {
    if (archProfile == null) {
      return null;
    }
    if (archProfile.startsWith("ppc64")) {
      return "ppc64";
    }
    if (archProfile.startsWith("x86_64")) {
      return "x86_64";
    }
    if (archProfile.startsWith("arm64") || archProfile.startsWith("aarch64")) {
      return "aarch64";
    }
    return null;
  }

  /**
   * One VMA.
   *
   * @param object what it maps ({@code libc.so.6}, {@code [heap]})
   * @param perms its protection as /proc/PID/maps prints it
   * @param file index into {@link #files}, or -1 for an anonymous or special mapping
   * @param anonRoot index into {@link #anonRoots}, or -1 when it has no anon_vma
   */
  public record Vma(String object, String perms, int file, int anonRoot) {}

  public AddressSpaceLayout {
    files = ImmutableList.copyOf(files);
    anonRoots = ImmutableList.copyOf(anonRoots);
    vmas = ImmutableList.copyOf(vmas);
    for (Vma v : vmas) {
      checkArgument(v.file() < files.size() && v.anonRoot() < anonRoots.size(), "VMA %s refers to no lock", v);
    }
  }

  /** The named layout; {@code uniform} with the three sizes; perf-4.8 for ppc64 with 64 KiB pages. */
  public static AddressSpaceLayout of(String name, int files, int vmasPerFile, int anonVmas) {
    return of(name, files, vmasPerFile, anonVmas, 65536, "ppc64");
  }

  /** The named layout for a guest with {@code pageSize} pages and {@code unwindArch}'s libunwind. */
  public static AddressSpaceLayout of(String name, int files, int vmasPerFile, int anonVmas, int pageSize,
      String unwindArch) {
    if (PERF_4_8.equals(name)) {
      return perf48(pageSize, unwindArch);
    }
    checkArgument(UNIFORM.equals(name), "unknown address space [%s]; known: [%s, %s]", name, PERF_4_8, UNIFORM);
    return uniform(files, vmasPerFile, anonVmas);
  }

  /** perf 4.8 on ppc64le with 64 KiB pages (see the class comment for the sources). */
  public static AddressSpaceLayout perf48() {
    return perf48(65536, "ppc64");
  }

  /**
   * perf 4.8 with {@code pageSize} pages: a library has the PROT_NONE hole only when its data
   * segment does not start on the page after its text ({@code has_holes}), i.e. when the page is
   * smaller than the link's max-page-size (64 KiB on ppc64 and aarch64, 2 MiB on x86_64).
   */
  public static AddressSpaceLayout perf48(int pageSize, String unwindArch) {
    Builder b = new Builder(pageSize < 65536);
    b.kernelMapped("perf");
    b.anonymous("perf-bss");
    b.anonymous("heap");
    for (String lib : libraries(unwindArch).reverse()) {
      b.library(lib);
    }
    b.vmas.add(new Vma("vdso", "r-x", -1, -1));
    b.kernelMapped("ld64.so.2");
    b.anonymous("stack");
    return b.build(PERF_4_8);
  }

  /** The synthetic layout of the earlier model (files of equal VMAs, data VMA f carries anon root f). */
  public static AddressSpaceLayout uniform(int files, int vmasPerFile, int anonVmas) {
    checkArgument(files >= 0 && vmasPerFile >= 0 && anonVmas >= 0, "mapped files and VMAs must not be negative");
    List<String> fileNames = new ArrayList<>();
    List<String> roots = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      fileNames.add("file" + f);
    }
    for (int a = 0; a < anonVmas; a++) {
      roots.add("anon_vma" + a);
    }
    List<Vma> vmas = new ArrayList<>();
    int attached = vmasPerFile > 0 ? Math.min(files, anonVmas) : 0;
    for (int f = 0; f < files; f++) {
      for (int v = 0; v < vmasPerFile; v++) {
        boolean data = v == vmasPerFile - 1 && f < attached;
        vmas.add(new Vma("file" + f, data ? "rw-" : "r-x", f, data ? f : -1));
      }
    }
    for (int a = attached; a < anonVmas; a++) {
      vmas.add(new Vma("anon" + a, "rw-", -1, a));
    }
    return new AddressSpaceLayout(UNIFORM, ImmutableList.copyOf(fileNames), ImmutableList.copyOf(roots),
        ImmutableList.copyOf(vmas));
  }

  /** The i_mmap rwsem's lock name of file {@code f}. */
  public String fileLockName(int f) {
    return files.get(f) + ".i_mmap_rwsem";
  }

  /** The rwsem's lock name of root anon_vma {@code a}. */
  public String anonLockName(int a) {
    return UNIFORM.equals(name) ? anonRoots.get(a) + ".rwsem" : anonRoots.get(a) + ".anon_vma.rwsem";
  }

  /** Locks of the address space: the files' i_mmap rwsems, then the root anon_vmas' rwsems. */
  public int locks() {
    return files.size() + anonRoots.size();
  }

  /**
   * The lock of every address-space step of a fork or exit, in walk order: per VMA, its root
   * anon_vma (lock index {@code files + root}) before its file (lock index {@code file}).
   */
  public int[] walk() {
    List<Integer> steps = new ArrayList<>();
    for (Vma v : vmas) {
      if (v.anonRoot() >= 0) {
        steps.add(files.size() + v.anonRoot());
      }
      if (v.file() >= 0) {
        steps.add(v.file());
      }
    }
    return steps.stream().mapToInt(Integer::intValue).toArray();
  }

  /** VMAs that map a file (i_mmap inserts per fork). */
  public long fileVmas() {
    return vmas.stream().filter(v -> v.file() >= 0).count();
  }

  /** VMAs with an anon_vma (anon_vma_fork calls per fork). */
  public long anonVmas() {
    return vmas.stream().filter(v -> v.anonRoot() >= 0).count();
  }

  private static final class Builder {
    final boolean holes;
    final List<String> files = new ArrayList<>();
    final List<String> roots = new ArrayList<>();
    final List<Vma> vmas = new ArrayList<>();

    Builder(boolean holes) {
      this.holes = holes;
    }

    /** An ELF object the kernel maps segment by segment: text, then data split by RELRO. */
    void kernelMapped(String object) {
      int f = file(object);
      int a = root(object);
      vmas.add(new Vma(object, "r-x", f, -1));
      vmas.add(new Vma(object, "r--", f, a));
      vmas.add(new Vma(object, "rw-", f, a));
    }

    /** A shared library as _dl_map_segments maps it: text, the PROT_NONE hole if any, RELRO, data. */
    void library(String object) {
      int f = file(object);
      int a = root(object);
      vmas.add(new Vma(object, "r-x", f, -1));
      if (holes) {
        vmas.add(new Vma(object, "---", f, -1));
      }
      vmas.add(new Vma(object, "r--", f, a));
      vmas.add(new Vma(object, "rw-", f, a));
    }

    void anonymous(String object) {
      vmas.add(new Vma(object, "rw-", -1, root(object)));
    }

    int file(String object) {
      files.add(object);
      return files.size() - 1;
    }

    int root(String object) {
      roots.add(object);
      return roots.size() - 1;
    }

    AddressSpaceLayout build(String name) {
      return new AddressSpaceLayout(name, ImmutableList.copyOf(files), ImmutableList.copyOf(roots),
          ImmutableList.copyOf(vmas));
    }
  }
}
