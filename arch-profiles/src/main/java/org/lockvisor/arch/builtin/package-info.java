/**
 * The built-in arch profiles ({@code x86_64-kvm}, {@code arm64-kvm}, {@code ppc64-powervm},
 * {@code s390x-kvm}), their discovery ({@link org.lockvisor.arch.builtin.ArchProfiles}) and the
 * YAML loader that derives a profile from one of them
 * ({@link org.lockvisor.arch.builtin.ArchProfileYaml}). Jackson is confined to this package.
 */
package org.lockvisor.arch.builtin;
