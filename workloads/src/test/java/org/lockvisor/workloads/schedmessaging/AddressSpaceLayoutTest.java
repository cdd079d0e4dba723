package org.lockvisor.workloads.schedmessaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.lockvisor.workloads.schedmessaging.AddressSpaceLayout.Vma;

/**
 * The walk of fork ({@code dup_mmap}) and exit ({@code free_pgtables}) over perf 4.8's mappings:
 * address order (the executable, its bss and heap, the libraries in reverse load order, ld64.so.2,
 * the stack), per VMA the root anon_vma before the file, a library as _dl_map_segments maps it
 * (r-x, r--, rw- with 64 KiB pages; r-x, ---, r--, rw- when the page is smaller than the link's
 * max-page-size; RELRO and data sharing one anon_vma), a file's VMAs adjacent.
 */
class AddressSpaceLayoutTest {

  @Test
  void perf48_objectsAndCounts() {
    AddressSpaceLayout l = AddressSpaceLayout.perf48();
    // perf, its 19 libraries, ld64.so.2
    assertThat(l.files()).hasSize(21).startsWith("perf", "libcrypt.so.1", "libbz2.so.1.0", "libc.so.6")
        .endsWith("libpthread.so.0", "ld64.so.2");
    // each ELF object's data, perf's bss, the heap, the stack
    assertThat(l.anonRoots()).hasSize(24).startsWith("perf", "perf-bss", "heap").endsWith("ld64.so.2", "stack");
    assertThat(l.fileVmas()).isEqualTo(3 + 19 * 3 + 3);
    assertThat(l.anonVmas()).isEqualTo(2 + 2 + 19 * 2 + 2 + 1);
    assertThat(l.walk()).hasSize(63 + 45);
    assertThat(AddressSpaceLayout.PERF_4_8_LIBRARIES).contains("libc.so.6", "libpthread.so.0", "librt.so.1", "libm.so.6",
        "libdl.so.2", "libelf.so.1", "libdw.so.1", "libnuma.so.1", "libz.so.1", "liblzma.so.5", "libslang.so.2",
        "libperl.so.5.22", "libpython2.7.so.1.0", "libcrypto.so.1.0.0", "libunwind.so.8", "libunwind-ppc64.so.8");
  }

  @Test
  void perf48_addressOrder_executableFirstLibrariesInReverseLoadOrderStackLast() {
    List<String> objects = new ArrayList<>();
    for (Vma v : AddressSpaceLayout.perf48().vmas()) {
      if (objects.isEmpty() || !objects.get(objects.size() - 1).equals(v.object())) {
        objects.add(v.object());
      }
    }
    List<String> libsDescending = new ArrayList<>(AddressSpaceLayout.PERF_4_8_LIBRARIES.reverse());
    List<String> expected = new ArrayList<>(List.of("perf", "perf-bss", "heap"));
    expected.addAll(libsDescending);
    expected.addAll(List.of("vdso", "ld64.so.2", "stack"));
    assertThat(objects).containsExactlyElementsOf(expected);
  }

  @Test
  void perf48_libraryVmas_64KiBPages_textRelroData_relroAndDataShareOneAnonVma() {
    AddressSpaceLayout l = AddressSpaceLayout.perf48();
    List<Vma> libc = l.vmas().stream().filter(v -> v.object().equals("libc.so.6")).toList();
    assertThat(libc).extracting(Vma::perms).containsExactly("r-x", "r--", "rw-");
    int f = l.files().indexOf("libc.so.6");
    int a = l.anonRoots().indexOf("libc.so.6");
    assertThat(libc).extracting(Vma::file).containsOnly(f);
    assertThat(libc).extracting(Vma::anonRoot).containsExactly(-1, a, a);
    // the executable and the interpreter are mapped by the kernel segment by segment: no hole
    assertThat(l.vmas().stream().filter(v -> v.object().equals("perf")).map(Vma::perms)).containsExactly("r-x", "r--", "rw-");
    assertThat(l.vmas().stream().filter(v -> v.object().equals("ld64.so.2")).map(Vma::perms))
        .containsExactly("r-x", "r--", "rw-");
    // the vdso takes no lock
    assertThat(l.vmas().stream().filter(v -> v.object().equals("vdso"))).singleElement()
        .satisfies(v -> assertThat(v.file()).isEqualTo(-1)).satisfies(v -> assertThat(v.anonRoot()).isEqualTo(-1));
  }

  @Test
  void perf48_4KiBPagesOnX86_theProtNoneHole_andTheArchsLibunwind() {
    AddressSpaceLayout l = AddressSpaceLayout.perf48(4096, AddressSpaceLayout.unwindArch("x86_64-kvm"));
    assertThat(l.vmas().stream().filter(v -> v.object().equals("libc.so.6")).map(Vma::perms))
        .containsExactly("r-x", "---", "r--", "rw-");
    assertThat(l.files()).contains("libunwind-x86_64.so.8").doesNotContain("libunwind-ppc64.so.8");
    assertThat(l.fileVmas()).isEqualTo(3 + 19 * 4 + 3);
    // 4.8's Makefile.config sets no LIBUNWIND_LIBS on s390: no libunwind at all
    assertThat(AddressSpaceLayout.libraries(AddressSpaceLayout.unwindArch("s390x-kvm"))).hasSize(17)
        .noneMatch(n -> n.startsWith("libunwind"));
  }

  @Test
  void perf48_walk_anonRootBeforeFile_eachFilesStepsAdjacent() {
    AddressSpaceLayout l = AddressSpaceLayout.perf48();
    int files = l.files().size();
    int perf = l.files().indexOf("perf");
    int perfRoot = files + l.anonRoots().indexOf("perf");
    int crypt = l.files().indexOf("libcrypt.so.1");
    int cryptRoot = files + l.anonRoots().indexOf("libcrypt.so.1");
    int[] w = l.walk();
    // perf: text; RELRO (root, file); data (root, file); then bss, heap; then the lowest library
    assertThat(w).startsWith(perf, perfRoot, perf, perfRoot, perf, files + 1, files + 2,
        crypt, cryptRoot, crypt, cryptRoot, crypt);
    int ld = l.files().indexOf("ld64.so.2");
    int ldRoot = files + l.anonRoots().indexOf("ld64.so.2");
    assertThat(w).endsWith(ld, ldRoot, ld, ldRoot, ld, files + l.anonRoots().indexOf("stack"));
    // a file's i_mmap steps are not interleaved with another file's
    Set<Integer> done = new HashSet<>();
    int current = -1;
    for (int lock : w) {
      if (lock >= files || lock == current) {
        continue;
      }
      assertThat(done).as("file %s walked twice", l.files().get(lock)).doesNotContain(lock);
      if (current >= 0) {
        done.add(current);
      }
      current = lock;
    }
  }

  @Test
  void uniform_theEarlierSyntheticWalk() {
    // 2 files of 3 VMAs, 3 anonymous VMAs: file 0 x2, anon root 0 (data VMA of file 0) then file 0,
    // file 1 x2, anon 1 then file 1, then the remaining anonymous VMA (lock indexes: files 0-1,
    // anon roots 2-4)
    assertThat(AddressSpaceLayout.uniform(2, 3, 3).walk()).containsExactly(0, 0, 2, 0, 1, 1, 3, 1, 4);
    assertThat(AddressSpaceLayout.uniform(2, 0, 2).walk()).containsExactly(2, 3);
    assertThat(AddressSpaceLayout.uniform(2, 3, 3).fileLockName(1)).isEqualTo("file1.i_mmap_rwsem");
    assertThat(AddressSpaceLayout.uniform(2, 3, 3).anonLockName(2)).isEqualTo("anon_vma2.rwsem");
    assertThatThrownBy(() -> AddressSpaceLayout.of("perf-2.6", 1, 1, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[perf-2.6]").hasMessageContaining("perf-4.8");
  }
}
