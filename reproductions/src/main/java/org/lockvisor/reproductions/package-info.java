/**
 * The built-in reproductions of the three seed results, one package each ({@code vhost},
 * {@code virtioblk}, {@code vcpupreempted}), plus {@code support}: what they share (shipped
 * experiment files, published figures, tables, plots), public for reproduction plugins too.
 * Each is a {@link org.lockvisor.reproductions.api.Reproduction} plugin registered with AutoService and
 * assembled only from the built-in plugins and the arch profiles: no constant here is fitted to a
 * published figure; the published figures appear only in the tables that print them beside the
 * simulated ones.
 */
package org.lockvisor.reproductions;
