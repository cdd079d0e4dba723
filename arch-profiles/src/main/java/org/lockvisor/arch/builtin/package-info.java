/**
 * The built-in arch profiles ({@code x86_64-kvm}, {@code arm64-kvm}, {@code ppc64-powervm},
 * {@code s390x-kvm}), found through {@link org.lockvisor.arch.catalog.ArchProfiles}. The YAML
 * loader that derives a profile from one of them is {@code org.lockvisor.arch.yaml} in the module
 * {@code arch-profiles-yaml}, so this artifact carries no Jackson.
 */
package org.lockvisor.arch.builtin;
