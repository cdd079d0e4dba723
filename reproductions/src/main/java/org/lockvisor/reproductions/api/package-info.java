/**
 * The reproduction SPI: a {@link org.lockvisor.reproductions.api.Reproduction} plugin (registered
 * with {@code @AutoService(Reproduction.class)}) runs its shipped experiment files through the
 * experiment runner it is given in {@link org.lockvisor.reproductions.api.ReproductionOptions},
 * declares its setup parameters ({@link org.lockvisor.reproductions.api.ReproductionParameter},
 * {@link org.lockvisor.reproductions.api.DerivedBindings}) and returns a {@link
 * org.lockvisor.reproductions.api.ReproductionResult} with its bands; {@link
 * org.lockvisor.reproductions.api.WhatIf} is a user's change of its setup ({@code --set}); each
 * internal run is reported to {@link org.lockvisor.reproductions.api.ReproductionRuns} as an
 * {@link org.lockvisor.reproductions.api.ExperimentRun}.
 */
package org.lockvisor.reproductions.api;
